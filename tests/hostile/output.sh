# -o: only regular files or new paths are replaced (devices, FIFOs and
# symbolic links are refused unless --force-special); modes are kept or
# follow the umask; stale temporaries of dead runs are cleaned up.
. "$top_srcdir/tests/hostile/common.sh"

printf 'a B\nc D\n\n' > in.conll

umask 027
run 10 0 '' convert --to conll in.conll -o new.conll
[ "$(stat -c %a new.conll)" = 640 ] || fail "new file mode $(stat -c %a new.conll), expected 640 (umask 027)"
umask 022
chmod 604 new.conll
run 10 0 '' convert --to conll in.conll -o new.conll
[ "$(stat -c %a new.conll)" = 604 ] || fail "replaced file mode $(stat -c %a new.conll), expected the old 604"

# A symbolic link is neither replaced nor followed without --force-special.
printf 'keep\n' > target.conll
ln -s target.conll link.conll
run 10 1 'link.conll: is a symbolic link.*--force-special' convert --to conll in.conll -o link.conll
[ -L link.conll ] || fail "-o replaced the symbolic link"
[ "$(cat target.conll)" = keep ] || fail "-o wrote through the symbolic link"
run 10 0 '' --force-special convert --to conll in.conll -o link.conll
[ -L link.conll ] || fail "--force-special replaced the symbolic link"
cmp -s target.conll in.conll || fail "--force-special did not write through the link"

# A FIFO: refused, then written into with --force-special.
mkfifo fifo
run 10 1 'fifo: is a FIFO' convert --to conll in.conll -o fifo
[ -p fifo ] || fail "-o replaced the FIFO"
cat fifo > fromfifo &
reader=$!
run 10 0 '' --force-special convert --to conll in.conll -o fifo
wait "$reader"
[ -p fifo ] || fail "--force-special replaced the FIFO"
cmp -s fromfifo in.conll || fail "--force-special did not write into the FIFO"

# A device node (as root, the old code replaced -o /dev/null by a 0600
# file).  Our own null device, so that a regression cannot break the
# machine's /dev/null; without the right to create one, /dev/null itself is
# safe to use since we could not replace it either.
dev=/dev/null
mknod null c 1 3 2>/dev/null && dev=$work/null
run 10 1 "$dev: is a device" convert --to conll in.conll -o "$dev"
[ -c "$dev" ] || fail "$dev is no longer a character device"
run 10 0 '' --force-special convert --to conll in.conll -o "$dev"
[ -c "$dev" ] || fail "$dev is no longer a character device"
run 10 1 'is a directory' convert --to conll in.conll -o .
run 10 0 '' convert --to conll in.conll -o -
cmp -s out in.conll || fail "-o - did not write to stdout"

# Stale temporaries: one of a dead pid, one without pid older than an
# hour; a fresh one of a live process is left alone.
sleep 30 & live=$!
( exit 0 ) & dead=$!; wait "$dead"
touch "new.conll.tmp.$dead.AbCdEf" "new.conll.tmp.$live.AbCdEf" new.conll.tmp.QwErTy
touch -d '2 hours ago' new.conll.tmp.QwErTy
run 10 0 '' convert --to conll in.conll -o new.conll
kill "$live" 2>/dev/null
[ -e "new.conll.tmp.$dead.AbCdEf" ] && fail "the temporary of dead pid $dead was not removed"
[ -e new.conll.tmp.QwErTy ] && fail "the two-hour-old temporary was not removed"
[ -e "new.conll.tmp.$live.AbCdEf" ] || fail "the temporary of a live process was removed"
rm -f "new.conll.tmp.$live.AbCdEf"
ls new.conll.tmp.* 2>/dev/null && fail "convert left a temporary behind"

# An output that is the input itself, however spelt (./, a hard link), is
# refused before anything is written: the output replaces its file only at
# the end, and then the input was gone (a model overwritten by model info,
# a corpus by its eval report).
printf 'U00:%%x[0,0]\nB\n' > s.tpl
cp in.conll keep.conll
run 30 0 '' train --template s.tpl --max-iter 2 --model s.model in.conll
cp s.model s-keep.model
ln in.conll hard.conll
run 10 1 'is the input in.conll itself' convert --to xml in.conll -o ./in.conll
run 10 1 'is the input in.conll itself' tag --model s.model -o hard.conll in.conll
run 10 1 'is the input in.conll itself' eval --model s.model -o in.conll in.conll
run 10 1 'is the input in.conll itself' tag --model s.model -o in.conll keep.conll in.conll
run 10 1 'is the input s.model itself' model info -o s.model s.model
run 10 2 '--model in.conll is the training file itself' train --template s.tpl --model in.conll in.conll
run 10 2 '--report keep.conll is the dev file itself' train --template s.tpl --dev keep.conll \
    --report keep.conll --model s2.model in.conll
run 10 2 '--checkpoint in.conll is the training file itself' train --template s.tpl \
    --checkpoint in.conll --model s2.model in.conll
run 30 0 '' train --template s.tpl --max-iter 2 --report s.tsv --model s2.model in.conll
cp s.tsv s-keep.tsv
run 10 2 '-o s.tsv is the table s.tsv itself' plot -o s.tsv s.tsv
cmp -s in.conll keep.conll && cmp -s s.model s-keep.model && cmp -s s.tsv s-keep.tsv ||
    fail "an input was written over"
# a warm start may write its own model: it is read whole before training
run 30 0 '' train --template s.tpl --max-iter 2 --init-model s.model --model s.model in.conll
exit 0
