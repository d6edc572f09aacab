# perl ithreads: 8 threads that each clone the interpreter and allocate,
# a shared hash under lock, and fork from a threaded perl.
use strict; use warnings; use threads; use threads::shared;
my %h :shared; my $total :shared = 0;
my @t = map { my $k = $_; threads->create(sub {
    my $s = 0;
    for my $i (1 .. 20000) { my @a = (1 .. ($i % 50)); $s += @a; my $x = "x" x ($i % 300); }
    { lock(%h); $h{$k} = $s; } { lock($total); $total += $s; }
    return $s; }) } 1 .. 8;
$_->join for @t;
print "total $total keys ", scalar(keys %h), "\n";
my @p;
for (1 .. 5) { my $pid = fork(); if (!$pid) { my @a = map { "y" x $_ } 1 .. 1000; exit(@a % 7); } push @p, $pid; }
my $st = 0; for (@p) { waitpid($_, 0); $st += $? >> 8; }
print "forked $st\n";
