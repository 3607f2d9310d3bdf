# The stand-in API the example's agent calls: /v1/items answers GET with its items and POST with
# 201 (a write), each only to a request carrying its key in X-Api-Key (401 otherwise). One line a
# request on stdout, saying whether the key matched, never the key. Perl, as the set-up's Debian
# base holds it and nothing more is needed.
use strict;
use warnings;
use IO::Socket::INET;

$| = 1;
my $key = $ENV{API_KEY} or die "API_KEY is the key this API takes\n";
my $server = IO::Socket::INET->new(LocalPort => 80, Listen => 16, ReuseAddr => 1) or die "listen on port 80: $!\n";
print "serving on port 80\n";
while (my $c = $server->accept) {
  my $first = <$c>;
  next unless defined $first;
  my ($method, $target) = split / /, $first;
  my %header;
  while (my $line = <$c>) {
    $line =~ s/\r?\n$//;
    last if $line eq '';
    my ($name, $value) = split /:\s*/, $line, 2;
    $header{lc $name} = $value;
  }
  my $keyed = ($header{'x-api-key'} // '') eq $key;
  my ($status, $body) =
      $target ne '/v1/items'               ? ('404 Not Found', "no such path\n")
    : !$keyed                              ? ('401 Unauthorized', "a key is needed in X-Api-Key\n")
    : $method eq 'GET'                     ? ('200 OK', qq({"items":[{"id":1,"name":"first"},{"id":2,"name":"second"}]}\n))
    : $method eq 'POST'                    ? ('201 Created', qq({"id":3}\n))
    :                                        ('405 Method Not Allowed', "GET or POST\n");
  print "$method $target: $status, the key ", ($keyed ? 'matched' : 'was missing or wrong'), "\n";
  print $c "HTTP/1.0 $status\r\nContent-Type: application/json\r\nContent-Length: " . length($body) . "\r\n\r\n$body";
  close $c;
}
