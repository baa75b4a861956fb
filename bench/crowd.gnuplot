# Crowd plot of bench/crowd.sh: run in its OUT_DIR, which holds crowd.tsv.
#   gnuplot -e "threads='1 2'; outfile='crowd.svg'" /path/to/bench/crowd.gnuplot
# Left: characters per second against crowd size, one series per thread count. Right: the
# scaling efficiency against one thread for the same crowd.
if (!exists("threads")) threads = "1 2"
if (!exists("outfile")) outfile = "crowd.svg"

set terminal svg size 1100,450 noenhanced font "sans,12" background "white"
set output outfile
set datafile separator "\t"
array colours[8] = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]
do for [i = 1:8] { set linetype i lc rgb colours[i] lw 1.5 pt 7 ps 0.7 }
set linetype cycle 8
# The rows of one thread count (gnuplot breaks a line at every filtered-out row).
rows(t) = sprintf("< awk -F'\t' 'NR > 1 && $2 == %s' crowd.tsv", t)

set multiplot layout 1,2 title "ossa crowd: 3 sampling jobs + blend + local-to-model per character per frame (pab, 67 joints)"
set logscale x
set xlabel "characters per frame"
set grid xtics ytics lc rgb "#dddddd"
set key left bottom box opaque font ",10"

set ylabel "characters per second"
set logscale y
set format y "%.0s%c"
plot for [i = 1:words(threads)] rows(word(threads, i)) using 1:4 with linespoints lt i title word(threads, i)." thread(s)"

unset logscale y
set format y "%g"
set ylabel "efficiency vs 1 thread"
set yrange [0:1.2]
plot for [i = 1:words(threads)] rows(word(threads, i)) using 1:7 with linespoints lt i title word(threads, i)." thread(s)"
unset multiplot
