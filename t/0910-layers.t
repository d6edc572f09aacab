#!/usr/bin/perl
# The library's structure, as the linker sees it (src/README.md draws it):
# which file's object refers to which other file's symbols.  Fails on a
# circle of calls between two or more files, and on any reference that
# runs up the layers: base < conf < stack < next < record < scan < output <
# leak < control < intercept (intercept and control never call each other;
# nothing calls control or intercept).  Reads the objects that make
# build/libheapprof.so, so inline functions in headers count where they
# are expanded; and the sources' #include lines, so that a type from a
# higher layer counts too.  Then the library and the command (src/cli,
# src/report) share no name: no symbol, macro, struct, enum or enumerator.
# Last, the command's own structure, from build/cli and build/report: no
# circle of calls between its files, and the report engine neither calls
# nor includes the command (src/cli uses src/report, never the reverse).
use strict;
use warnings;
use File::Basename qw(dirname);

my $src = $ENV{HP_SRC} // dirname(dirname(__FILE__));
my $build = $ENV{HP_BUILD} // "$src/build";
my @layers = qw(base conf stack next record scan output leak control intercept);
my %rank = map { $layers[$_] => $_ } 0 .. $#layers;

# Only objects with a source: a build directory made before a file moved
# (output/leak.c is leak/leak.c now) keeps the old object, which would
# define the same symbols twice and hide the file's real references.
my @objs = grep { my ($p) = m{/lib/(.+)\.o$}; -f "$src/src/lib/$p.c" }
  sort glob("$build/lib/*/*.o");
if (!@objs) {
	print "Bail out! no objects under $build/lib: run make\n";
	exit 1;
}
my (%defs, %uses);
for my $o (@objs) {
	my ($layer, $name) = $o =~ m{/lib/([^/]+)/([^/]+)\.o$} or next;
	my $file = "$layer/$name";
	for (`nm $o`) {
		if (/^[0-9a-f]+ [TDBRVW] (\S+)$/) { $defs{$1} = $file }
		elsif (/^\s+U (\S+)$/) { push @{$uses{$file}}, $1 }
	}
}
# Every source file has an object, so every file is a node.
my (%edge, %why);
for my $from (sort keys %uses) {
	for my $sym (@{$uses{$from}}) {
		my $to = $defs{$sym} // next;
		next if $to eq $from;
		$edge{$from}{$to} = 1;
		push @{$why{"$from $to"}}, $sym;
	}
}

print "1..8\n";

# 1. Every object sits in a known layer.
my @unknown = grep { my ($l) = m{/lib/([^/]+)/}; !exists $rank{$l} } @objs;
print((@unknown ? 'not ok' : 'ok'), " 1 - every file is in a known layer\n");
print "# unknown: $_\n" for @unknown;

# 2. No reference runs up: a file calls only its own layer and those below.
my @up;
for my $from (sort keys %edge) {
	for my $to (sort keys %{$edge{$from}}) {
		my ($lf) = split m{/}, $from;
		my ($lt) = split m{/}, $to;
		push @up, "$from -> $to (@{$why{\"$from $to\"}})" if $rank{$lt} > $rank{$lf};
	}
}
print((@up ? 'not ok' : 'ok'), " 2 - references run down the layers only\n");
print "# up: $_\n" for @up;

# 3. No circle of references between files (Tarjan's strongly connected
# components; a component of two or more files is a circle).
sub circles {
	my ($edge) = @_;
	my ($index, @stack, %on, %idx, %low, @circles) = (0);
	my $strong;
	$strong = sub {
		my ($v) = @_;
		$idx{$v} = $low{$v} = $index++;
		push @stack, $v;
		$on{$v} = 1;
		for my $w (sort keys %{$edge->{$v} // {}}) {
			if (!exists $idx{$w}) {
				$strong->($w);
				$low{$v} = $low{$w} if $low{$w} < $low{$v};
			} elsif ($on{$w}) {
				$low{$v} = $idx{$w} if $idx{$w} < $low{$v};
			}
		}
		if ($low{$v} == $idx{$v}) {
			my @c;
			while (1) {
				my $w = pop @stack;
				$on{$w} = 0;
				push @c, $w;
				last if $w eq $v;
			}
			push @circles, [sort @c] if @c > 1;
		}
	};
	my %nodes = map { $_ => 1 } keys %$edge, map { keys %$_ } values %$edge;
	$strong->($_) for grep { !exists $idx{$_} } sort keys %nodes;
	undef $strong;
	return @circles;
}
sub print_circles {
	my ($edge, $why, @circles) = @_;
	for my $c (@circles) {
		my %in = map { $_ => 1 } @$c;
		print "# circle: @$c\n";
		for my $f (@$c) {
			for my $t (sort grep { $in{$_} } keys %{$edge->{$f}}) {
				print "#   $f -> $t (@{$why->{\"$f $t\"}})\n";
			}
		}
	}
}
my @circles = circles(\%edge);
print((@circles ? 'not ok' : 'ok'), " 3 - no circle of calls between files\n");
print_circles(\%edge, \%why, @circles);

# 4. No source includes a header of a higher layer (types count too).
my @inc_up;
for my $f (sort glob("$src/src/lib/*/*.[ch]")) {
	my ($lf) = $f =~ m{/src/lib/([^/]+)/};
	open my $fh, '<', $f or next;
	while (<$fh>) {
		next unless /^\s*#\s*include\s+"([a-z]+)\/([^"]+)"/;
		push @inc_up, "$lf/" . ($f =~ m{([^/]+)$})[0] . " includes $1/$2"
		  if exists $rank{$1} && $rank{$1} > $rank{$lf};
	}
}
print((@inc_up ? 'not ok' : 'ok'), " 4 - no file includes a header of a higher layer\n");
print "# up: $_\n" for @inc_up;

# 5 and 6. One name, one thing: the library and the command share no
# symbol and no macro, struct, enum or HP_ enumerator name.  version.h is
# the one file they share, on purpose.
sub symbols {
	my %s;
	for my $o (@_) {
		for (`nm --defined-only $o`) {
			$s{$1} = 1 if /^[0-9a-f]+ [TDBRVW] (\S+)$/;
		}
	}
	return \%s;
}
sub names {
	my %n;
	for my $f (@_) {
		open my $fh, '<', $f or next;
		while (<$fh>) {
			$n{$1} = 1 if /^\s*#\s*define\s+([A-Za-z_]\w*)/;
			$n{"$1 $2"} = 1 while /\b(struct|enum)\s+([a-z_]\w*)\s*\{/g;
			$n{$1} = 1 if /^\s+(HP_[A-Z0-9_]+)\s*(?:=|,|$)/;
		}
	}
	return \%n;
}
my $lib_syms = symbols(@objs);
my $cmd_syms = symbols(glob("$build/cli/*.o"), glob("$build/report/*.o"));
my @shared_syms = sort grep { $cmd_syms->{$_} && !/^\.|^_|^DW\.ref/ } keys %$lib_syms;
print((@shared_syms ? 'not ok' : 'ok'), " 5 - the library and the command share no symbol\n");
print "# shared: $_\n" for @shared_syms;
my $lib_names = names(glob("$src/src/lib/*/*.[ch]"), glob("$src/src/lib/*/*.def"));
my $cmd_names = names(glob("$src/src/cli/*.[ch]"), glob("$src/src/report/*.[ch]"));
my @shared_names = sort grep { $cmd_names->{$_} } keys %$lib_names;
print((@shared_names ? 'not ok' : 'ok'), " 6 - nor a macro, struct, enum or enumerator name\n");
print "# shared: $_\n" for @shared_names;

# The command's objects: those of build/cli and build/report whose source
# is still there (an object left behind by a removed file is no node).
my @cmd_objs = sort grep {
	my ($dir, $name) = m{/(cli|report)/([^/]+)\.o$};
	-e "$src/src/$dir/$name.c"
} glob("$build/cli/*.o"), glob("$build/report/*.o");
if (!grep { m{/cli/main\.o$} } @cmd_objs) {
	print "Bail out! no objects under $build/cli: run make\n";
	exit 1;
}
my (%cdefs, %cuses, %cedge, %cwhy);
for my $o (@cmd_objs) {
	my ($file) = $o =~ m{/((?:cli|report)/[^/]+)\.o$};
	for (`nm $o`) {
		if (/^[0-9a-f]+ [TDBRVW] (\S+)$/) { $cdefs{$1} = $file }
		elsif (/^\s+U (\S+)$/) { push @{$cuses{$file}}, $1 }
	}
}
for my $from (sort keys %cuses) {
	for my $sym (@{$cuses{$from}}) {
		my $to = $cdefs{$sym} // next;
		next if $to eq $from;
		$cedge{$from}{$to} = 1;
		push @{$cwhy{"$from $to"}}, $sym;
	}
}

# 7. No circle of calls between the command's files, report engine's
# included.
my @ccircles = circles(\%cedge);
print((@ccircles ? 'not ok' : 'ok'), " 7 - no circle of calls between the command's files\n");
print_circles(\%cedge, \%cwhy, @ccircles);

# 8. The report engine does not call the command, nor include its headers.
my @rep_up;
for my $from (sort grep { m{^report/} } keys %cedge) {
	for my $to (sort grep { m{^cli/} } keys %{$cedge{$from}}) {
		push @rep_up, "$from -> $to (@{$cwhy{\"$from $to\"}})";
	}
}
for my $f (sort glob("$src/src/report/*.[ch]")) {
	my ($name) = $f =~ m{([^/]+)$};
	open my $fh, '<', $f or next;
	while (<$fh>) {
		push @rep_up, "report/$name includes $1"
		  if /^\s*#\s*include\s+"((?:\.\.\/)?cli\/[^"]+)"/;
	}
}
print((@rep_up ? 'not ok' : 'ok'), " 8 - the report engine neither calls nor includes the command\n");
print "# up: $_\n" for @rep_up;
