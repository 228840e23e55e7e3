# awk -v F=THEIRS -f same-but-rounding.awk OURS: whether OURS holds the
# lines of THEIRS but that a number (D.DDD...) may differ by 2e-6, the last
# of six printed decimals (CRF++ sums a token's weights in single
# precision, crfpipe in double).  Prints the count of lines and numbers and
# of those 1e-6 apart; exits 1 on the first other difference, named.
{ if ((getline other < F) <= 0) { print "more lines than " F; bad++; exit }
  a = $0; b = other
  while (1) {
      if (!match(a, /[0-9]+\.[0-9]+/)) { if (a != b) { bad++; print NR ": " $0 " | " other }; break }
      sa = RSTART; la = RLENGTH
      if (!match(b, /[0-9]+\.[0-9]+/) || RSTART != sa || substr(a, 1, sa - 1) != substr(b, 1, sa - 1)) {
          bad++; print NR ": " $0 " | " other; break }
      x = substr(a, sa, la) + 0; y = substr(b, RSTART, RLENGTH) + 0
      if ((x - y) ^ 2 > 4e-12) { bad++; print NR ": " x " vs " y; break }
      nums++; near += x != y
      a = substr(a, sa + la); b = substr(b, RSTART + RLENGTH)
  }
  n++ }
END { if ((getline other < F) > 0) { print "fewer lines than " F; bad++ }
      printf "%d lines, %d numbers, %d of them 1e-6 apart\n", n, nums, near
      exit bad > 0 || n == 0 }
