package addr

// The cases the table is held to, here and in TypeScript (test/vectors/egress.json): every
// written form of an address a client can send, and the class of canonical addresses.

// WrittenForm is a host as written and the address it is ("" when it is malformed).
type WrittenForm struct {
	Written string `json:"written"`
	Address string `json:"address"`
}

// WrittenForms are the written forms both sides read alike.
var WrittenForms = []WrittenForm{
	{"127.0.0.1", "127.0.0.1"},
	{"2130706433", "127.0.0.1"},
	{"017700000001", "127.0.0.1"},
	{"0177.0.0.1", "127.0.0.1"},
	{"0177.0000.0000.0001", "127.0.0.1"},
	{"0x7f000001", "127.0.0.1"},
	{"0X7F000001", "127.0.0.1"},
	{"0x7f.0x0.0x0.0x1", "127.0.0.1"},
	{"0x7f.1", "127.0.0.1"},
	{"127.1", "127.0.0.1"},
	{"127.0.1", "127.0.0.1"},
	{"127.0.0.1.", "127.0.0.1"},
	{"0", "0.0.0.0"},
	{"0x", "0.0.0.0"},
	{"2852039166", "169.254.169.254"},
	{"0xa9fea9fe", "169.254.169.254"},
	{"0251.0376.0251.0376", "169.254.169.254"},
	{"169.254.43518", "169.254.169.254"},
	{"10.0.0.1", "10.0.0.1"},
	{"012.0.0.1", "10.0.0.1"},
	{"8.8.8.8", "8.8.8.8"},
	{"134744072", "8.8.8.8"},
	{"[::1]", "::1"},
	{"::1", "::1"},
	{"[::ffff:127.0.0.1]", "127.0.0.1"},
	{"[::ffff:7f00:1]", "127.0.0.1"},
	{"[0:0:0:0:0:ffff:127.0.0.1]", "127.0.0.1"},
	{"[64:ff9b::a00:1]", "64:ff9b::a00:1"},
	{"[64:ff9b::10.0.0.1]", "64:ff9b::a00:1"},
	{"[2002:a00:1::1]", "2002:a00:1::1"},
	{"[2606:4700::1111]", "2606:4700::1111"},
	{"[FD00:EC2::254]", "fd00:ec2::254"},
	{"1.2.3.256", ""},
	{"256.1.1.1", ""},
	{"1.2.3.4.5", ""},
	{"4294967296", ""},
	{"08.0.0.1", ""},
	{"1.2.3.0x", "1.2.3.0"},
	{"example.123", ""},
	{"[fe80::1%25lo]", ""},
	{"[127.0.0.1]", ""},
	{"[::1", ""},
	{"1..1", ""},
}

// Classified is an address and its class.
type Classified struct {
	Address string `json:"address"`
	Class   Class  `json:"class"`
}

// ClassifiedAddresses are canonical addresses both sides classify alike.
var ClassifiedAddresses = []Classified{
	{"8.8.8.8", Public}, {"93.184.215.14", Public}, {"2606:4700::1111", Public}, {"::ffff:8.8.8.8", Public},
	{"127.0.0.1", Loopback}, {"127.255.255.254", Loopback}, {"0.0.0.0", Loopback}, {"::", Loopback}, {"::1", Loopback},
	{"::ffff:127.0.0.1", Loopback}, {"0.1.2.3", Reserved},
	{"10.0.0.1", Private}, {"172.16.0.1", Private}, {"172.31.255.255", Private}, {"172.32.0.1", Public},
	{"192.168.1.1", Private}, {"100.64.0.1", Private}, {"fd12::1", Private}, {"fc00::1", Private},
	{"169.254.169.254", Metadata}, {"169.254.170.2", Metadata}, {"100.100.100.200", Metadata},
	{"168.63.129.16", Metadata}, {"fd00:ec2::254", Metadata}, {"::ffff:169.254.169.254", Metadata},
	{"169.254.1.1", LinkLocal}, {"fe80::1", LinkLocal},
	{"224.0.0.1", Multicast}, {"239.255.255.250", Multicast}, {"ff02::1", Multicast},
	{"240.0.0.1", Reserved}, {"255.255.255.255", Reserved}, {"192.0.2.1", Reserved}, {"198.18.0.1", Reserved},
	{"192.0.0.170", Reserved}, {"2001:db8::1", Reserved}, {"2001::1", Reserved}, {"3fff::1", Reserved},
	{"4000::1", Reserved}, {"fec0::1", Reserved}, {"100::1", Reserved}, {"::a00:1", Reserved},
	{"64:ff9b::a00:1", Private}, {"64:ff9b::7f00:1", Loopback}, {"64:ff9b::808:808", Reserved},
	{"64:ff9b:1::a00:1", Private}, {"2002:a00:1::1", Private}, {"2002:a9fe:a9fe::", Metadata},
	{"2002:808:808::1", Reserved},
}
