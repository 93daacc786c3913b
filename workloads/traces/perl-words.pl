use strict; use warnings;
srand(11);
my %count; my @lines;
for my $i (1..4000) {
    my $line = join(' ', map { join('', map { chr(97 + int(rand(26))) } 1..(1 + int(rand(9)))) } 1..(3 + int(rand(12))));
    push @lines, $line;
    $count{$_}++ for split / /, $line;
}
my @top = (sort { $count{$b} <=> $count{$a} || $a cmp $b } keys %count)[0..9];
@lines = grep { length($_) > 40 } @lines;
my $joined = join("\n", @lines);
undef %count;
print scalar(@top), " ", length($joined), "\n";
