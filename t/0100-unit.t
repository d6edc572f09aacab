#!/bin/sh
# Unit tests of the library's modules (t/unit/unit.c).
. "$(dirname "$0")/lib.sh"
exec "$TP/unit"
