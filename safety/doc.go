// Package safety judges URLs before anything is sent. Check reports
// findings about a parsed URL, each under a stable rule id; a Policy refuses
// a URL with any error-level finding (Evaluate) and, when asked, refuses
// local destinations at dial time (Control, CheckIP). The package follows
// the security considerations of RFC 1738 (section 6), of the 1996 URL
// draft (section 8) and of RFC 2396 (section 7): a URL aimed at the port of
// another protocol, and escaped delimiters that a client decodes before
// writing them on a line protocol, turn a harmless retrieval into a
// "possibly damaging remote operation".
//
// # Rules
//
//	rule                   level    when
//	malformed              error    the URL does not parse, or its scheme's view fails (the
//	                                offset and reason of the *uri.Error are given)
//	encoded-crlf           error    %0D or %0A in a component written on a line protocol
//	                                (see Components); never lifted
//	encoded-nul            error    %00 in such a component; never lifted
//	encoded-tab            error    %09 in an ftp, nntp or news argument (and in the path of a
//	                                file URL for another host), or a third %09 of a gopher-path,
//	                                which lands in the gopher+ string (except in a +ASK form)
//	port-other-protocol    error    the port belongs to another protocol (Ports) and is not the
//	                                scheme's default
//	port-reserved          warning  another non-default port below 1024
//	port-non-default       info     any other non-default port
//	password-in-url        warning  a non-empty password is present (never printed back)
//	userinfo-not-allowed   warning  user information in http, https, gopher, mailto, news,
//	                                nntp, wais, file or prospero, whose syntax has none
//	                                (as each driver says: Facts.NoUserinfo)
//	unsafe-character       warning  an unencoded character RFC 1738 section 2.2 calls unsafe
//	                                (space < > " { } | \ ^ ~ [ ] `, and a second # in the
//	                                fragment) or a non-ASCII byte; in a host, non-ASCII only
//
// An explicit port equal to the scheme's default gives no finding. A port in
// Policy.AllowPorts (--allow-port) is still reported, at most at warning
// level, with "allowed by --allow-port" in the message: port-other-protocol
// drops from error to warning, the other two keep their level. Nothing lifts
// encoded-crlf, encoded-nul or encoded-tab.
//
// Messages name the byte offset (into the URL as written) and the decoded
// character, for example "%0D%0A (CR LF) at offset 24 in the gopher
// selector: ...". A message never contains a password: characters of a
// password are counted and placed but not shown, and the reason of a
// malformed finding is dropped when its offset may lie in a password.
//
// # Components
//
// A URL is kept escaped; a driver decodes a component just before it writes
// it. Each driver says which of a URL's components it writes, as a Wire
// (Policy.Wire; fetch.Client gives its registry of drivers); a Policy
// without one takes every escaped component for an argument of a command
// line. Which components reach a line, per scheme:
//
//	ftp       user, password, each cwd segment, name (USER, PASS, CWD, RETR/LIST/NLST;
//	          RFC 1738 section 3.2): CR/LF, NUL, TAB
//	gopher    selector and search (RFC 1738 section 3.4): CR/LF, NUL; gopher+ string:
//	          CR/LF, NUL, TAB, except for a filled +ASK form (below)
//	nntp      group (GROUP; section 3.7); the article is a number, checked by the view
//	news      group or message-id (GROUP, ARTICLE; section 3.6): CR/LF, NUL, TAB
//	telnet    user and password (advisory, shown to the user; section 3.8): CR/LF, NUL
//	wais      database, search, wtype, wpath (section 3.9, for a gateway): CR/LF, NUL
//	prospero  hsoname and fields (section 3.11, for a gateway): CR/LF, NUL
//	mailto    address (section 3.5; a mail program reads CR/LF as a new header line)
//	file      path: NUL (it would cut a local name short); for a host other than
//	          localhost, CR/LF, NUL, TAB (it may be fetched over ftp, --file-via-ftp)
//	http(s)   nothing: the path and search are sent on the request line in their
//	          escaped form and the client never decodes them, so %0D%0A in an http
//	          path is three characters on the wire, not a line break; a raw CR or LF
//	          cannot appear (the parser rejects control characters) and the host,
//	          which becomes the Host header, admits no "%" at all
//
// The gopher-path is split at its first two %09 (selector, search, gopher+
// string), so a decoded TAB can never be inside the selector or the search:
// a third %09 lands in the gopher+ string, where it would add a field to the
// request line. The item type character is not sent and is not checked.
//
// # The Gopher+ +ASK form
//
// RFC 1738 section 3.4 writes the gopher+ string of a filled electronic form
// as the coded version of what the client sends:
//
//	+%091%0D%0A+-1%0D%0A<ask_item1_value>%0D%0A<ask_item2_value>%0D%0A.%0D%0A
//
// CR, LF and TAB are accepted in the decoded gopher+ string only when the
// whole string has exactly this structure:
//
//	"+" TAB "1" CRLF "+-1" CRLF *( answer CRLF ) "." CRLF
//
// where no answer holds CR or LF and no answer is a lone "." (which would
// end the data block early). A TAB inside an answer is data of the block and
// is accepted; NUL never is. Any other gopher+ string with CR, LF or TAB
// gives encoded-crlf or encoded-tab.
//
// # Ports
//
// port-other-protocol uses the browsers' bad-port list (0 1 7 9 11 13 15 17
// 19 20 21 22 23 25 37 42 43 53 69 77 79 87 95 101 102 103 104 109 110 111
// 113 115 117 119 123 135 137 139 143 161 179 389 427 465 512 513 514 515
// 526 530 531 532 540 548 554 556 563 587 601 636 989 990 993 995 1719 1720
// 1723 2049 3659 4045 4190 5060 5061 6000 6566 6665-6669 6679 6697 10080),
// less the scheme's own default port (ftp may use 21, telnet 23, nntp and
// news 119). For the schemes whose drivers write decoded URL text on a
// plain-text connection (ftp, gopher, nntp, news, telnet, wais, prospero,
// and file because of --file-via-ftp; each driver says so in its Facts,
// and a Policy whose Wire says no Facts takes every scheme for one) it
// adds services that execute one plain-text line as a command and that a
// browser's list has no reason to hold:
//
//	2003   Graphite plaintext (every line is stored as a metric)
//	2181   ZooKeeper (four-letter admin commands)
//	3310   clamd (SHUTDOWN is one line)
//	4730   Gearman (text admin protocol, including shutdown)
//	6379   Redis (inline commands)
//	11211  memcached (set, delete, flush_all)
//	11300  beanstalkd (put, delete)
//	26379  Redis Sentinel (inline commands)
//
// Binary protocols (databases such as MySQL on 3306) are left out: a line
// of URL text is not a command there. news: has no port in RFC 1738; the
// news://server:port/ form of RFC 5538 is judged against NNTP's 119 (the
// driver's Facts.Port). Schemes
// without a default port (file, unknown schemes) get every explicit port
// judged.
//
// # Private destinations
//
// With Policy.DenyPrivate, Control (a net.Dialer Control function) and
// CheckIP refuse these destinations, with an *AddressError wrapping both
// ErrPrivateAddress and ErrRefused:
//
//	unspecified     0.0.0.0/8, ::            (connecting to it reaches this host)
//	loopback        127.0.0.0/8, ::1
//	private         10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 (RFC 1918)
//	unique local    fc00::/7 (RFC 4193)
//	CGNAT           100.64.0.0/10 (RFC 6598)
//	link-local      169.254.0.0/16, fe80::/10
//	site-local      fec0::/10 (deprecated)
//	IPv4-compatible ::/96 (deprecated)
//	non-unicast     multicast, 255.255.255.255
//
// An IPv4-mapped address (::ffff:a.b.c.d) and the NAT64 form
// (64:ff9b::a.b.c.d) are judged by the IPv4 address they carry. Control runs
// after name resolution and before connect, on the address the kernel is
// about to connect to: a host name whose DNS answers 127.0.0.1 (at any time,
// DNS rebinding included) is refused without a packet being sent. Drivers
// dial through one net.Dialer with this Control for every connection,
// redirects and FTP data connections included.
package safety
