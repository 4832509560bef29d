#!/bin/sh
# expect-exit.sh N CMD [ARGS...]: runs CMD and succeeds only if it exits with status N exactly
# (lit's `not` accepts any failure, a crash included). CMD's output passes through unchanged.
want=$1
shift
"$@"
got=$?
if [ "$got" -ne "$want" ]; then
  echo "expect-exit: '$*' exited with status $got, expected $want" >&2
  exit 1
fi
exit 0
