// SPDX-License-Identifier: GPL-2.0
/*
 * warn_test.ko: used only by tools/vm/selftest.sh to prove that tools/vm/run.sh
 * fails a run whose kernel log shows a problem. Loading it with
 *   mode=warn    (default) emits exactly one WARN() (harmless: no state is touched);
 *   mode=kasan   reads one byte past a kmalloc'd buffer (a KASAN report on the
 *                debug kernel; the buffer is freed);
 *   mode=ubsan   indexes a local array out of its bounds (a UBSAN report on the
 *                debug kernel; the bad read is of a stack slot and discarded);
 *   mode=leak    kmallocs 64 bytes and forgets the pointer (kmemleak reports an
 *                unreferenced object at the run's end; 64 bytes are lost);
 *   mode=int3    executes a breakpoint no one handles: an "Oops: int3" that
 *                kills insmod, as TCG's text-patching race does (run.sh runs
 *                such a command once more, then fails it); the module stays
 *                half-loaded until the guest powers off;
 * and succeeds; unloading is clean.
 */
#include <linux/module.h>
#include <linux/bug.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *mode = "warn";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "warn, kasan, ubsan, leak or int3");

/* Opaque to the compiler, so it cannot prove the accesses below wrong. */
static volatile int warn_test_index = 8;
static void *warn_test_sink;

static int __init warn_test_init(void)
{
	if (!strcmp(mode, "kasan")) {
		char *p = kmalloc(8, GFP_KERNEL);

		if (!p)
			return -ENOMEM;
		pr_info("warn_test: out-of-bounds read %d\n", READ_ONCE(p[warn_test_index]));
		kfree(p);
	} else if (!strcmp(mode, "ubsan")) {
		int a[8] = { 0 };

		pr_info("warn_test: out-of-bounds index %d\n", a[warn_test_index]);
	} else if (!strcmp(mode, "leak")) {
		warn_test_sink = kmalloc(64, GFP_KERNEL);
		WRITE_ONCE(warn_test_sink, NULL);
	} else if (!strcmp(mode, "int3")) {
		asm volatile("int3");
	} else {
		WARN(1, "xbridge-vm selftest: deliberate warning\n");
	}
	return 0;
}

static void __exit warn_test_exit(void)
{
}

module_init(warn_test_init);
module_exit(warn_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tools/vm selftest: emits one WARN(), KASAN, UBSAN or kmemleak report on load");
