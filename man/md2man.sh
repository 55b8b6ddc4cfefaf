#!/bin/bash
# md2man.sh SRC.md NAME SECTION VERSION OUT - a man page from a Documentation
# page, so the two never drift apart. The page's title line
# ("# NAME(8) - summary" or "# NAME — summary") becomes the NAME section, the
# text before the first "## " heading DESCRIPTION, each "## Heading" a man
# section (upper case), and pandoc writes the roff.
set -euo pipefail
src=${1:?usage: md2man.sh SRC.md NAME SECTION VERSION OUT} name=${2:?} section=${3:?}
version=${4:?} out=${5:?}

awk -v name="$name" -v section="$section" -v version="$version" '
NR == 1 {
	if ($0 !~ /^# /) { print "md2man.sh: " FILENAME " does not start with a title line" > "/dev/stderr"; exit 1 }
	summary = $0
	sub(/^# [^ ]+ +(-|—) +/, "", summary)
	gsub(/`/, "", summary)
	printf "%% %s(%s) xbridge %s | System Administration\n\n", toupper(name), section, version
	printf "# NAME\n\n%s - %s\n\n# DESCRIPTION\n", name, summary
	next
}
/^```/ { fence = !fence }
!fence && /^## / { h = substr($0, 4); print "# " toupper(h); next }
!fence && /^### / { print substr($0, 2); next }
{ print }
' "$src" | pandoc -s -f markdown -t man -o "$out"
