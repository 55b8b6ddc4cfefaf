// SPDX-License-Identifier: GPL-2.0
/*
 * warn_test.ko: used only by tools/vm/selftest.sh to prove that tools/vm/run.sh
 * fails a run whose kernel log shows a WARNING. Loading it emits exactly one
 * WARN() (harmless: no state is touched) and succeeds; unloading is clean.
 */
#include <linux/module.h>
#include <linux/bug.h>

static int __init warn_test_init(void)
{
	WARN(1, "xbridge-vm selftest: deliberate warning\n");
	return 0;
}

static void __exit warn_test_exit(void)
{
}

module_init(warn_test_init);
module_exit(warn_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tools/vm selftest: emits one WARN() on load");
