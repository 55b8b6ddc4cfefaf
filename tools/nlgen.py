#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""nlgen.py - generate the xbridge netlink layer from netlink/xbridge.yaml.

The kernel's YNL generator (tools/net/ynl/ynl-gen-c.py) in miniature, for
this one genetlink family. From the spec it writes:

  netlink/xbridge.h        the uAPI: enums of commands, attributes,
                           definitions; family, version, group names
  kmod-shim/xbridge_nl.h   the kernel side's declarations: the nested
                           policies, the handlers the ops table names
                           (hand-written in xbridge_genl_*.c), the
                           multicast group ids, the family
  kmod-shim/xbridge_nl.c   the policies (one per attribute set, one per
                           operation, one per restricted nest), the ops
                           table, the multicast groups, the family

Usage: nlgen.py [--check] [SPEC]
  without --check: (re)write the three files beside the spec's tree;
  with --check:    write nothing, exit 1 if any committed file differs from
                   what the spec generates (the meson test
                   `netlink-generated` runs this).

The spec keys it understands are the genetlink ones the family uses, plus
the few extensions listed at the top of netlink/xbridge.yaml
(Documentation/netlink.md explains them and how to add an object).
"""
import argparse
import difflib
import os
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

NLA_TYPES = {
    "u8": "NLA_U8", "u16": "NLA_U16", "u32": "NLA_U32", "u64": "NLA_U64",
    "s8": "NLA_S8", "s16": "NLA_S16", "s32": "NLA_S32", "s64": "NLA_S64",
    "string": "NLA_NUL_STRING", "binary": "NLA_BINARY", "nest": "NLA_NESTED",
    "flag": "NLA_FLAG",
}
S16_MAX = 32767


def c_name(s):
    return s.replace("-", "_")


def upper(s):
    return c_name(s).upper()


class SpecError(Exception):
    pass


class Attr:
    def __init__(self, aset, raw, value):
        self.aset = aset
        self.name = raw["name"]
        self.type = raw["type"]
        self.value = raw.get("value", value)
        self.doc = raw.get("doc", "")
        self.checks = raw.get("checks", {}) or {}
        self.nested = raw.get("nested-attributes")
        self.read_only = bool(raw.get("read-only", False))
        self.hint = raw.get("display-hint")
        if self.type not in NLA_TYPES and self.type != "pad":
            raise SpecError("attribute %s: unknown type %s" % (self.name, self.type))

    @property
    def enum_name(self):
        return upper(self.aset.prefix + self.name)


class AttrSet:
    def __init__(self, family, raw):
        self.name = raw["name"]
        self.prefix = raw.get("name-prefix", "%s-a-%s-" % (family, self.name))
        self.enum_name = c_name(raw.get("enum-name", "%s-%s-attrs" % (family, self.name)))
        self.doc = raw.get("doc", "")
        base = upper(self.prefix)
        self.cnt_name = upper(raw["attr-cnt-name"]) if "attr-cnt-name" in raw else "__" + base + "MAX"
        self.max_name = (self.cnt_name[2:] if self.cnt_name.startswith("__") else base + "MAX")
        self.attrs = []
        value = 1
        for a in raw["attributes"]:
            attr = Attr(self, a, value)
            value = attr.value + 1
            self.attrs.append(attr)
        self.by_name = {a.name: a for a in self.attrs}
        self.has_zero = any(a.value == 0 for a in self.attrs)
        self.family_prefix = family

    def attr(self, name):
        if name not in self.by_name:
            raise SpecError("attribute set %s has no attribute %s" % (self.name, name))
        return self.by_name[name]

    @property
    def policy_name(self):
        return "%s_%s_nl_policy" % (c_name(self.family_prefix), c_name(self.name))


class Op:
    def __init__(self, family, raw, value, prefix):
        self.name = raw["name"]
        self.value = raw.get("value", value)
        self.doc = raw.get("doc", "")
        self.enum_name = upper(prefix + self.name)
        self.aset = raw.get("attribute-set")
        self.flags = raw.get("flags", [])
        self.do = raw.get("do")
        self.dump = raw.get("dump")
        self.notify = raw.get("notify")
        self.family = family

    def requests(self):
        for mode in (self.do, self.dump):
            if mode and mode.get("request"):
                yield mode["request"]

    def request_attrs(self):
        names = []
        for r in self.requests():
            for n in r.get("attributes", []):
                if n not in names:
                    names.append(n)
        return names

    def request_nests(self):
        nests = {}
        for r in self.requests():
            for k, v in (r.get("nests") or {}).items():
                if k in nests and nests[k] != v:
                    raise SpecError("op %s: do and dump restrict nest %s differently" % (self.name, k))
                nests[k] = v
        return nests


class Family:
    def __init__(self, spec):
        self.spec = spec
        self.name = spec["name"]
        self.cname = c_name(self.name)
        self.version = spec.get("version", 1)
        self.doc = spec.get("doc", "")
        self.definitions = spec.get("definitions", [])
        self.sets = [AttrSet(self.name, s) for s in spec["attribute-sets"]]
        self.set_by_name = {s.name: s for s in self.sets}
        ops = spec["operations"]
        self.op_prefix = ops.get("name-prefix", self.name + "-cmd-")
        self.op_enum = c_name(ops.get("enum-name", self.name + "-cmd"))
        self.ops = []
        value = 1
        for o in ops["list"]:
            op = Op(self, o, value, self.op_prefix)
            value = op.value + 1
            self.ops.append(op)
        self.mcgrps = [g["name"] for g in spec.get("mcast-groups", {}).get("list", [])]
        self.kernel = spec.get("kernel-family", {}) or {}

    def aset(self, name):
        if name not in self.set_by_name:
            raise SpecError("no attribute set %s" % name)
        return self.set_by_name[name]


def comment(text, indent=""):
    text = " ".join(text.split())
    return "%s/* %s */" % (indent, text) if text else ""


# ---- uAPI header -------------------------------------------------------------

def gen_uapi(fam, spec_rel):
    out = []
    w = out.append
    w("/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */")
    w("/* Do not edit directly, auto-generated from: */")
    w("/*\t%s */" % spec_rel)
    w("/* by tools/nlgen.py; regenerate with: python3 tools/nlgen.py */")
    w("")
    w("/*")
    for line in fam.doc.strip().split("\n"):
        w((" * " + line).rstrip())
    w(" */")
    guard = "_UAPI_LINUX_%s_H" % upper(fam.name)
    w("#ifndef %s" % guard)
    w("#define %s" % guard)
    w("")
    w('#define %s_FAMILY_NAME\t\t"%s"' % (upper(fam.name), fam.name))
    w("#define %s_FAMILY_VERSION\t\t%d" % (upper(fam.name), fam.version))
    for g in fam.mcgrps:
        w('#define %s_MCGRP_%s\t\t"%s"' % (upper(fam.name), upper(g), g))
    w("")
    for d in fam.definitions:
        dname = d["name"]
        if d["type"] == "const":
            prefix = d.get("name-prefix", fam.name + "-")
        else:
            prefix = d.get("name-prefix", "%s-%s-" % (fam.name, dname))
        if d.get("doc"):
            w(comment(d["doc"]))
        if d["type"] == "const":
            w("#define %s\t%s" % (upper(prefix + dname), d["value"]))
            w("")
            continue
        w("enum %s {" % c_name(d.get("enum-name", "%s-%s" % (fam.name, dname))))
        value = 0 if d["type"] == "enum" else None
        for i, e in enumerate(d["entries"]):
            if isinstance(e, str):
                e = {"name": e}
            if d["type"] == "flags":
                v = e.get("value", 1 << i)
                val = "0x%x" % v
            else:
                v = e.get("value", value)
                value = v + 1
                val = "%d" % v
            line = "\t%s = %s," % (upper(prefix + e["name"]), val)
            if e.get("doc"):
                line += "\t" + comment(e["doc"])
            w(line)
        w("};")
        w("")
    for s in fam.sets:
        if s.doc:
            w(comment(s.doc))
        w("enum %s {" % s.enum_name)
        if not s.has_zero:
            w("\t%sUNSPEC," % upper(s.prefix))
        for a in s.attrs:
            line = "\t%s = %d," % (a.enum_name, a.value)
            notes = []
            if a.nested:
                notes.append("nest: enum %s" % fam.aset(a.nested).enum_name)
            elif a.type != "pad":
                notes.append(a.type)
            if a.read_only:
                notes.append("read-only")
            if a.doc:
                notes.append(a.doc)
            line += "\t" + comment("; ".join(notes))
            w(line.rstrip())
        w("")
        w("\t%s," % s.cnt_name)
        w("\t%s = %s - 1," % (s.max_name, s.cnt_name))
        w("};")
        w("")
    w("enum %s {" % fam.op_enum)
    w("\t%sUNSPEC," % upper(fam.op_prefix))
    for op in fam.ops:
        w("\t%s = %d,\t%s" % (op.enum_name, op.value, comment(op.doc.split(".")[0])))
    w("")
    w("\t__%sMAX," % upper(fam.op_prefix))
    w("\t%sMAX = __%sMAX - 1," % (upper(fam.op_prefix), upper(fam.op_prefix)))
    w("};")
    w("")
    w("#endif /* %s */" % guard)
    return "\n".join(out) + "\n"


# ---- kernel policies and ops -------------------------------------------------

def policy_entry(fam, attr, nest_policy=None, ranges=None):
    """The nla_policy initialiser of one attribute of a request."""
    if attr.read_only:
        return '{ .type = NLA_REJECT, .reject_message = "%s is read-only" }' % upper(attr.name)
    if attr.type == "pad":
        return None
    nla = NLA_TYPES[attr.type]
    if attr.type == "nest":
        return "NLA_POLICY_NESTED(%s)" % (nest_policy or fam.aset(attr.nested).policy_name)
    if attr.type == "binary" and attr.hint == "mac":
        if attr.checks.get("exact-len") != 6:
            raise SpecError("%s: a mac is exactly 6 bytes" % attr.name)
        return "NLA_POLICY_VALIDATE_FN(NLA_BINARY, xbr_nl_validate_mac)"
    if attr.type == "binary" and "exact-len" in attr.checks:
        return "NLA_POLICY_EXACT_LEN(%d)" % attr.checks["exact-len"]
    lo, hi = attr.checks.get("min"), attr.checks.get("max")
    if lo is None and hi is None:
        return "{ .type = %s }" % nla
    if (hi is not None and hi > S16_MAX) or (lo is not None and lo > S16_MAX):
        rname = "%s_%s_range" % (c_name(attr.aset.prefix.rstrip("-")), c_name(attr.name))
        ranges.append((rname, lo or 0, hi))
        return "NLA_POLICY_FULL_RANGE(%s, &%s)" % (nla, rname)
    if lo is not None and hi is not None:
        return "NLA_POLICY_RANGE(%s, %d, %d)" % (nla, lo, hi)
    if hi is not None:
        return "NLA_POLICY_MAX(%s, %d)" % (nla, hi)
    return "NLA_POLICY_MIN(%s, %d)" % (nla, lo)


def emit_policy(w, fam, name, aset, attrs, static, nests, ranges_out, top_name=None):
    """One policy array over @attrs (Attr objects) of @aset, sized to the
    highest of them (or to @top_name: a whole set's policy spans the set)."""
    if top_name is None:
        top = max(a.value for a in attrs)
        top_name = [a for a in attrs if a.value == top][0].enum_name
    entries = []
    for a in attrs:
        e = policy_entry(fam, a, nests.get(a.name), ranges_out)
        if e:
            entries.append((a.enum_name, e))
    w("%sconst struct nla_policy %s[%s + 1] = {" % ("static " if static else "", name, top_name))
    for en, e in entries:
        w("\t[%s] = %s," % (en, e))
    w("};")
    w("")
    return top_name


def nested_sets_in_requests(fam):
    """Attribute sets whose whole-set policy a request can reach."""
    need = []

    def visit(aset, names):
        for n in names:
            a = aset.attr(n)
            if a.type == "nest" and not a.read_only:
                sub = fam.aset(a.nested)
                if sub.name not in need:
                    need.append(sub.name)
                    visit(sub, [x.name for x in sub.attrs])

    for op in fam.ops:
        restricted = op.request_nests()
        aset = fam.aset(op.aset)
        visit(aset, [n for n in op.request_attrs() if n not in restricted])
    return [fam.aset(n) for n in need]


def handler(prefix, op, kind):
    return "%s%s_%s" % (prefix, c_name(op.name), kind)


def ops_type_guard(w):
    w("#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)")
    w("#define XBR_NL_OPS_T struct genl_split_ops")
    w("#else")
    w("#define XBR_NL_OPS_T struct genl_ops")
    w("#endif")


def pre_post(fam):
    pres = {op.do.get("pre") for op in fam.ops if op.do}
    posts = {op.do.get("post") for op in fam.ops if op.do}
    if len(pres) != 1 or len(posts) != 1:
        raise SpecError("every do needs the same pre/post (family-level pre_doit on 6.1)")
    return c_name(pres.pop() or ""), c_name(posts.pop() or "")


def gen_kernel_h(fam, spec_rel):
    out = []
    w = out.append
    hp = "xbr_nl_"
    w("/* SPDX-License-Identifier: GPL-2.0 */")
    w("/* Do not edit directly, auto-generated from: */")
    w("/*\t%s */" % spec_rel)
    w("/* by tools/nlgen.py; regenerate with: python3 tools/nlgen.py */")
    w("")
    w("#ifndef XBRIDGE_NL_H")
    w("#define XBRIDGE_NL_H")
    w("")
    w("#include <linux/version.h>")
    w("#include <net/genetlink.h>")
    w("#include <net/netlink.h>")
    w("")
    w('#include "xbridge.h"')
    w("")
    ops_type_guard(w)
    w("")
    w("/* Common nested types */")
    for s in nested_sets_in_requests(fam):
        w("extern const struct nla_policy %s[%s + 1];" % (s.policy_name, s.max_name))
    for op in fam.ops:
        for nest, names in op.request_nests().items():
            a = fam.aset(op.aset).attr(nest)
            sub = fam.aset(a.nested)
            top = max(sub.attr(n).value for n in names)
            top_name = [sub.attr(n) for n in names if sub.attr(n).value == top][0].enum_name
            w("extern const struct nla_policy %s_%s_%s_nl_policy[%s + 1];" %
              (fam.cname, c_name(op.name), c_name(nest), top_name))
    w("")
    pre, post = pre_post(fam)
    w("/* Hand-written: the shared pre/post of every doit, the MAC check. */")
    w("int %s(const XBR_NL_OPS_T *ops, struct sk_buff *skb, struct genl_info *info);" % pre)
    w("void %s(const XBR_NL_OPS_T *ops, struct sk_buff *skb, struct genl_info *info);" % post)
    w("int xbr_nl_validate_mac(const struct nlattr *attr, struct netlink_ext_ack *extack);")
    w("")
    w("/* Hand-written handlers, one file per object (xbridge_genl_*.c). */")
    for op in fam.ops:
        if op.do:
            w("int %s(struct sk_buff *skb, struct genl_info *info);" % handler(hp, op, "doit"))
        if op.dump:
            w("int %s(struct sk_buff *skb, struct netlink_callback *cb);" %
              handler(hp, op, "dumpit"))
    w("")
    w("enum {")
    for g in fam.mcgrps:
        w("\t%s_NLGRP_%s," % (upper(fam.name), upper(g)))
    w("};")
    w("")
    w("extern struct genl_family xbr_nl_family;")
    w("")
    w("#endif /* XBRIDGE_NL_H */")
    return "\n".join(out) + "\n"


def gen_kernel_c(fam, spec_rel):
    body = []
    w = body.append
    ranges = []
    hp = "xbr_nl_"

    w("/* Common nested types */")
    for s in nested_sets_in_requests(fam):
        attrs = [a for a in s.attrs if a.type != "pad"]
        emit_policy(w, fam, s.policy_name, s, attrs, False, {}, ranges, s.max_name)

    op_policy = {}
    for op in fam.ops:
        aset = fam.aset(op.aset)
        nests = {}
        for nest, names in op.request_nests().items():
            sub = fam.aset(aset.attr(nest).nested)
            pname = "%s_%s_%s_nl_policy" % (fam.cname, c_name(op.name), c_name(nest))
            w("/* %s - %s nest */" % (op.enum_name, upper(nest)))
            emit_policy(w, fam, pname, sub, [sub.attr(n) for n in names], False, {}, ranges)
            nests[nest] = pname
        names = op.request_attrs()
        if not names:
            continue
        pname = "%s_%s_nl_policy" % (fam.cname, c_name(op.name))
        w("/* %s - %s */" % (op.enum_name, "/".join(
            k for k, m in (("do", op.do), ("dump", op.dump)) if m)))
        top = emit_policy(w, fam, pname, aset, [aset.attr(n) for n in names], True, nests, ranges)
        op_policy[op.name] = (pname, top)

    pre, post = pre_post(fam)
    w("/* Ops table for %s */" % fam.name)
    w("static const struct genl_ops %s_nl_ops[] = {" % fam.cname)
    for op in fam.ops:
        w("\t{")
        w("\t\t.cmd\t\t= %s," % op.enum_name)
        if op.do:
            w("\t\t.doit\t\t= %s," % handler(hp, op, "doit"))
        if op.dump:
            w("\t\t.dumpit\t\t= %s," % handler(hp, op, "dumpit"))
        if op.name in op_policy:
            w("\t\t.policy\t\t= %s," % op_policy[op.name][0])
            w("\t\t.maxattr\t= %s," % op_policy[op.name][1])
        flags = []
        for f in op.flags:
            flags.append({"admin-perm": "GENL_ADMIN_PERM",
                          "uns-admin-perm": "GENL_UNS_ADMIN_PERM"}[f])
        if flags:
            w("\t\t.flags\t\t= %s," % " | ".join(flags))
        w("\t},")
    w("};")
    w("")
    w("static const struct genl_multicast_group %s_nl_mcgrps[] = {" % fam.cname)
    for g in fam.mcgrps:
        w('\t[%s_NLGRP_%s] = { "%s", },' % (upper(fam.name), upper(g), g))
    w("};")
    w("")
    until = fam.kernel.get("legacy-flags-until")
    w("struct genl_family xbr_nl_family __ro_after_init = {")
    w("\t.name\t\t= %s_FAMILY_NAME," % upper(fam.name))
    w("\t.version\t= %s_FAMILY_VERSION," % upper(fam.name))
    w("\t.netnsok\t= true,")
    w("\t.parallel_ops\t= false,")
    w("\t.module\t\t= THIS_MODULE,")
    w("\t.ops\t\t= %s_nl_ops," % fam.cname)
    w("\t.n_ops\t\t= ARRAY_SIZE(%s_nl_ops)," % fam.cname)
    if until:
        w("\t.resv_start_op\t= %s + 1," % upper(fam.op_prefix + until))
    else:
        # Every operation gets the strict header check (reserved field,
        # legacy nlmsg flags), as a family without legacy users should.
        w("\t.resv_start_op\t= %s," % fam.ops[0].enum_name)
    w("\t.pre_doit\t= %s," % pre)
    w("\t.post_doit\t= %s," % post)
    w("\t.mcgrps\t\t= %s_nl_mcgrps," % fam.cname)
    w("\t.n_mcgrps\t= ARRAY_SIZE(%s_nl_mcgrps)," % fam.cname)
    w("};")

    out = []
    w = out.append
    w("// SPDX-License-Identifier: GPL-2.0")
    w("/* Do not edit directly, auto-generated from: */")
    w("/*\t%s */" % spec_rel)
    w("/* by tools/nlgen.py; regenerate with: python3 tools/nlgen.py */")
    w("")
    w("#include <net/netlink.h>")
    w("#include <net/genetlink.h>")
    w("")
    w('#include "xbridge_nl.h"')
    w("")
    w('#include "xbridge.h"')
    w("")
    for rname, lo, hi in ranges:
        w("static struct netlink_range_validation %s = {" % rname)
        w("\t.min\t= %dULL," % lo)
        w("\t.max\t= %dULL," % hi)
        w("};")
        w("")
    return "\n".join(out + body) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="fail if the committed files are not what the spec generates")
    ap.add_argument("spec", nargs="?", default=os.path.join(ROOT, "netlink", "xbridge.yaml"))
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(args.spec)))
    spec_rel = os.path.relpath(os.path.abspath(args.spec), root)
    with open(args.spec) as f:
        fam = Family(yaml.safe_load(f))
    try:
        files = {
            os.path.join(root, "netlink", "xbridge.h"): gen_uapi(fam, spec_rel),
            os.path.join(root, "kmod-shim", "xbridge_nl.h"): gen_kernel_h(fam, spec_rel),
            os.path.join(root, "kmod-shim", "xbridge_nl.c"): gen_kernel_c(fam, spec_rel),
        }
    except SpecError as e:
        print("nlgen.py: %s: %s" % (args.spec, e), file=sys.stderr)
        return 2
    stale = 0
    for path, text in files.items():
        old = open(path).read() if os.path.exists(path) else ""
        if old == text:
            continue
        if args.check:
            stale += 1
            rel = os.path.relpath(path, root)
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), text.splitlines(True), "a/" + rel, "b/" + rel))
        else:
            with open(path, "w") as f:
                f.write(text)
            print("nlgen.py: wrote %s" % os.path.relpath(path, root))
    if stale:
        print("nlgen.py: %d generated file(s) out of date with %s: run python3 tools/nlgen.py"
              % (stale, spec_rel), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
