#!/usr/bin/perl
# Unit tests of the library's modules: runs every program in build/t/unit
# (built from t/unit/MODULE.c, one per module under test) and merges their
# TAP into one stream.  Each program's tests are renumbered in sequence and
# named "MODULE: ..."; its diagnostics pass through.  After each program,
# one more test checks that it exited 0 and printed as many tests as its
# own plan says (a crash or an early exit fails it).  Each program runs in
# a scratch directory of its own.
use strict;
use warnings;
use File::Basename qw(basename dirname);
use File::Spec;
use File::Temp qw(tempdir);

my $src = $ENV{HP_SRC} // dirname(dirname(__FILE__));
my $build = $ENV{HP_BUILD} // "$src/build";
my $dir = File::Spec->rel2abs("$build/t/unit");

# Only programs with a source: a build directory made before a test was
# renamed (output-suppress is leak-suppress now) keeps the old program.
my @progs = grep { -f $_ && -x _ && !/\.d$/ && -f "$src/t/unit/" . basename($_) . ".c" }
  sort glob("$dir/*");
if (!@progs) {
	print "Bail out! no unit test programs in $dir: run make tprogs\n";
	exit 1;
}

$| = 1;
my ($n, $failed) = (0, 0);

sub result {
	my ($pass, $name) = @_;
	$n++;
	print(($pass ? 'ok' : 'not ok'), " $n - $name\n");
	$failed++ if !$pass;
}

for my $prog (@progs) {
	my $mod = basename($prog);
	my $scratch = tempdir("heapprof-unit.XXXXXX", TMPDIR => 1, CLEANUP => 1);
	chdir $scratch or die "chdir $scratch: $!";
	my ($count, $plan, $misnumbered, $skip) = (0, undef, 0, undef);
	open(my $out, '-|', $prog) or die "cannot run $prog: $!";
	while (my $line = <$out>) {
		chomp $line;
		if ($line =~ /^(not )?ok\b\s*(\d*)\s*(?:-\s*)?(.*)$/) {
			my ($not, $num, $desc) = ($1 // '', $2, $3);
			$count++;
			$misnumbered++ if $num ne '' && $num != $count;
			$n++;
			print "${not}ok $n - $mod: $desc\n";
			# A failing TODO test is expected, not a failure.
			$failed++ if $not && $desc !~ /#\s*TODO\b/i;
		} elsif ($line =~ /^1\.\.(\d+)(?:\s*#\s*SKIP\S*\s*(.*))?/i) {
			$plan = $1;
			$skip = $2 // 'skipped' if $1 == 0;
		} elsif ($line =~ /^Bail out!/) {
			print "$line\n";
			exit 1;
		} elsif ($line =~ /^\s*#/) {
			print "$line\n";
		} elsif ($line ne '') {
			print "# $mod: $line\n";
		}
	}
	close $out;
	my $status = $?;
	chdir '/';
	my $why = $status == -1 ? "could not run it: $!" :
		$status & 127 ? "killed by signal " . ($status & 127) :
		$status >> 8 ? "exit status " . ($status >> 8) :
		!defined $plan ? "no plan" :
		$plan != $count ? "planned $plan tests, ran $count" :
		$misnumbered ? "$misnumbered tests out of sequence" : '';
	if (defined $skip && !$why) {
		$n++;
		print "ok $n - $mod # SKIP $skip\n";
		next;
	}
	result(!$why, $why ? "$mod: all planned tests run, exit status 0 ($why)" :
	       "$mod: all $count planned tests run, exit status 0");
}

print "1..$n\n";
exit($failed ? 1 : 0);
