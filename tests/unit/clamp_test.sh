#!/bin/sh
# Clamped sizes (DynamicDim.clamp) end to end, through pbtxt_to_pt2c, `pt2c compile`,
# `pt2c report` / `pt2c inspect` and `pt2c run`:
#   clamp_nonzero.pbtxt  nonzero(x > 0)[:2]: u0 rows, of which the slice keeps
#                        c0 = min(u0, 2), known once nonzero's step ran;
#   clamp_batch.pbtxt    (x * 2)[:2] of x [n]: c0 = min(n, 2), known from the input.
# GPU targets refuse both.
# Usage: clamp_test.sh PT2C PBTXT_TO_PT2C TESTDATA_DIR
set -u
pt2c=$1 convert=$2 data=$3
dir=${TEST_TMPDIR:-/tmp}/clamp_test
mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
expect_line() { # FILE PATTERN WHAT
  grep -q "$2" "$1" || { cat "$1"; fail "$3"; }
}

# npy.py write X.npy V,V,...: a float32 vector; npy.py read Y.npy: "[shape] [values]".
cat >"$dir/npy.py" <<'PY'
import ast, struct, sys
if sys.argv[1] == "write":
    values = [float(v) for v in sys.argv[3].split(",")]
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % len(values)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(sys.argv[2], "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % len(values), *values))
else:
    data = open(sys.argv[2], "rb").read()
    size = struct.unpack_from("<H", data, 8)[0]
    header = ast.literal_eval(data[10:10 + size].decode())
    kind = {"<i8": "q", "<f4": "f"}[header["descr"]]
    count = 1
    for n in header["shape"]:
        count *= n
    values = struct.unpack_from("<%d%s" % (count, kind), data, 10 + size)
    print(list(header["shape"]), [int(v) if kind == "f" else v for v in values])
PY

compile() { # NAME: testdata/NAME.pbtxt -> $dir/NAME.so
  "$convert" "$data/$1.pbtxt" "$dir/$1.pt2c" || fail "pbtxt_to_pt2c $1"
  "$pt2c" compile "$dir/$1.pt2c" -o "$dir/$1.so" >"$dir/$1.log" 2>&1 || {
    cat "$dir/$1.log"
    fail "compile $1"
  }
  "$pt2c" report "$dir/$1.pt2c" >"$dir/$1.report" 2>&1 || fail "report $1"
  "$pt2c" inspect "$dir/$1.so" >"$dir/$1.inspect" 2>&1 || fail "inspect $1"
  if "$pt2c" compile "$dir/$1.pt2c" -o "$dir/$1_gpu.so" --target cuda >"$dir/$1.gpu" 2>&1; then
    fail "a GPU target compiled $1"
  fi
}

check() { # NAME X EXPECTED: the output of NAME.so on x = X (comma-separated)
  rm -rf "$dir/out" && mkdir -p "$dir/out"
  python3 "$dir/npy.py" write "$dir/x.npy" "$2" || fail "writing x.npy"
  "$pt2c" run "$dir/$1.so" -i "$dir/x.npy" --output-dir "$dir/out" >"$dir/run.log" 2>&1 || {
    cat "$dir/run.log"
    fail "$1 on $2"
  }
  got=$(python3 "$dir/npy.py" read "$dir/out/0.npy")
  [ "$got" = "$3" ] || fail "$1 on x = $2: got $got, expected $3"
}

compile clamp_nonzero
expect_line "$dir/clamp_nonzero.report" "^c0  *\[0, 2\]  min(u0, 2)" "report of the clamp"
expect_line "$dir/clamp_nonzero.inspect" "dynamic dim c0 = min(u0, 2), in \[0, 2\]" "inspect"
expect_line "$dir/clamp_nonzero.gpu" "GPU targets do not support yet" "GPU refusal (nonzero)"
check clamp_nonzero "1,-2,3,-4,5,0" "[2, 1] [0, 2]"    # 3 rows: clamped to 2
check clamp_nonzero "0,0,0,7,0,9" "[2, 1] [3, 5]"      # 2 rows: the clamp's bound itself
check clamp_nonzero "-1,-2,3,-4,-5,0" "[1, 1] [2]"     # 1 row: kept
check clamp_nonzero "-1,-2,-3,-4,-5,0" "[0, 1] []"     # none
check clamp_nonzero "1,2,3,4,5,6" "[2, 1] [0, 1]"      # every element: u0 at its bound 6

compile clamp_batch
expect_line "$dir/clamp_batch.inspect" "dynamic dim c0 = min(n, 2), in \[1, 2\]" "inspect"
expect_line "$dir/clamp_batch.gpu" "the size 'c0' = min(n, 2) (a clamped size" \
  "GPU refusal (clamp)"
check clamp_batch "5" "[1] [10]"
check clamp_batch "5,-1" "[2] [10, -2]"
check clamp_batch "5,-1,3,4,8,9,1,2" "[2] [10, -2]"
echo "OK"
