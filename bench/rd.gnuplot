# Rate-distortion plot of bench/rd.sh: run in its OUT_DIR, which holds rd.tsv and rd_refs.tsv.
#   gnuplot -e "clips='pab_walk pab_jog ...'" /path/to/bench/rd.gnuplot      writes rd.svg
# One line+points series per clip (ossa, one point per tolerance) and the ACL / ozz reference
# points in the colour of their clip.
if (!exists("clips")) clips = "pab_walk pab_jog pab_run pab_atlas 01_01"
if (!exists("outfile")) outfile = "rd.svg"

set terminal svg size 1000,600 noenhanced font "sans,12" background "white"
set output outfile
set title "Bytes against max error at 3 cm virtual vertices"
set xlabel "max error (mm)"
set ylabel "baked bytes"
set logscale xy
set format y "%.0s%c"
set format x "%g"
set xrange [0.02:10]
set grid xtics ytics mxtics mytics lc rgb "#dddddd"
set key outside right top box opaque font ",10"
set datafile separator "\t"

# Enough distinct colours for every clip; linetype i is clip i in every series.
array colours[12] = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", \
                     "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000080", "#808000"]
do for [i = 1:12] { set linetype i lc rgb colours[i] lw 1.5 pt 7 ps 0.6 }
set linetype cycle 12

# Index of a clip name in `clips` (0 when absent).
clip_index(s, i) = i > words(clips) ? 0 : (word(clips, i) eq s ? i : clip_index(s, i + 1))
positive(x) = x > 0 ? x : NaN
is(col, s) = strcol(col) eq s

plot for [i = 1:words(clips)] "rd.tsv" skip 1 \
       using (is(1, word(clips, i)) ? positive($4) : NaN):3 with linespoints lt i title word(clips, i), \
     "rd_refs.tsv" skip 1 using (is(2, "ACL") ? $4 : NaN):3:(clip_index(strcol(1), 1)) \
       with points pt 5 ps 1.6 lc variable notitle, \
     "rd_refs.tsv" skip 1 using (is(2, "ozz") ? $4 : NaN):3:(clip_index(strcol(1), 1)) \
       with points pt 9 ps 1.9 lc variable notitle, \
     NaN with points pt 5 ps 1.6 lc rgb "black" title "ACL 2.1 (reference)", \
     NaN with points pt 9 ps 1.9 lc rgb "black" title "ozz 0.16 (reference, joint error)"
