package safety

import (
	"fmt"
	"slices"

	"github.com/rfc1738/fetch/uri"
)

// badPorts is the browsers' list of ports that belong to another protocol
// (the "bad ports" of the Fetch standard), with the service behind each.
// A URL aimed at one of them, other than its own scheme's default port, is
// refused: this is the cross-protocol attack of RFC 1738 section 6, where a
// gopher URL sent mail through an SMTP server.
var badPorts = map[int]string{
	0:     "reserved (no service may use it)",
	1:     "tcpmux",
	7:     "echo",
	9:     "discard",
	11:    "systat",
	13:    "daytime",
	15:    "netstat",
	17:    "qotd",
	19:    "chargen",
	20:    "FTP data",
	21:    "FTP",
	22:    "SSH",
	23:    "Telnet",
	25:    "SMTP",
	37:    "time",
	42:    "host name server",
	43:    "whois",
	53:    "DNS",
	69:    "TFTP",
	77:    "private RJE",
	79:    "finger",
	87:    "ttylink",
	95:    "SUPDUP",
	101:   "NIC host name",
	102:   "ISO-TSAP",
	103:   "gppitnp",
	104:   "ACR-NEMA (DICOM)",
	109:   "POP2",
	110:   "POP3",
	111:   "Sun RPC portmapper",
	113:   "ident",
	115:   "SFTP (simple file transfer)",
	117:   "UUCP path service",
	119:   "NNTP",
	123:   "NTP",
	135:   "MS RPC endpoint mapper",
	137:   "NetBIOS name service",
	139:   "NetBIOS session (SMB)",
	143:   "IMAP",
	161:   "SNMP",
	179:   "BGP",
	389:   "LDAP",
	427:   "SLP",
	465:   "SMTP over TLS",
	512:   "rexec",
	513:   "rlogin",
	514:   "rsh",
	515:   "LPD printer",
	526:   "tempo",
	530:   "courier RPC",
	531:   "chat",
	532:   "netnews",
	540:   "UUCP",
	548:   "AFP",
	554:   "RTSP",
	556:   "remotefs",
	563:   "NNTP over TLS",
	587:   "SMTP submission",
	601:   "reliable syslog",
	636:   "LDAP over TLS",
	989:   "FTP data over TLS",
	990:   "FTP over TLS",
	993:   "IMAP over TLS",
	995:   "POP3 over TLS",
	1719:  "H.323 RAS",
	1720:  "H.323 call signalling",
	1723:  "PPTP",
	2049:  "NFS",
	3659:  "Apple SASL",
	4045:  "NFS lock daemon",
	4190:  "ManageSieve",
	5060:  "SIP",
	5061:  "SIP over TLS",
	6000:  "X11",
	6566:  "SANE",
	6665:  "IRC",
	6666:  "IRC",
	6667:  "IRC",
	6668:  "IRC",
	6669:  "IRC",
	6679:  "IRC over TLS",
	6697:  "IRC over TLS",
	10080: "Amanda",
}

// linePorts are services that read plain-text commands, one per line, and
// are not on the browsers' list (an HTTP client cannot speak to them
// usefully, but a gopher selector, an ftp path or an nntp group is one such
// line). They are refused for the line-protocol schemes only.
var linePorts = map[int]string{
	2003:  "Graphite plaintext (each line is stored as a metric)",
	2181:  "ZooKeeper (four-letter admin commands)",
	3310:  "clamd (SHUTDOWN is one line)",
	4730:  "Gearman (text admin commands, including shutdown)",
	6379:  "Redis (inline commands)",
	11211: "memcached (text protocol: set, delete, flush_all)",
	11300: "beanstalkd (text commands: put, delete)",
	26379: "Redis Sentinel (inline commands)",
}

// otherProtocol returns the service on port n that a URL of a scheme of
// facts f must not reach, or "".
func otherProtocol(f Facts, n int) string {
	if n == f.Port {
		return ""
	}
	if s, ok := badPorts[n]; ok {
		return s
	}
	if f.Line {
		return linePorts[n]
	}
	return ""
}

// portFindings applies the port rules to an explicit port that is not the
// scheme's default (sf.Port).
func portFindings(u *uri.URL, p Policy, sf Facts) []Finding {
	if u.Port == "" {
		return nil
	}
	n := u.PortNumber()
	def := sf.Port
	if n == def {
		return nil
	}
	defText := fmt.Sprintf("%s's default port %d", u.Scheme, def)
	if def == 0 {
		defText = u.Scheme + " has no default port"
		if u.Scheme == "" {
			defText = "the URL has no scheme"
		}
	}
	// The message names the port (what), then the default it is not (not
	// joining the two), or the scheme's lack of one in parentheses.
	f := Finding{Rule: RulePortNonDefault, Level: Info, Component: "port"}
	what, not := fmt.Sprintf("port %d", n), " is not "
	svc := otherProtocol(sf, n)
	switch {
	case svc != "":
		f.Rule, f.Level = RulePortOtherProtocol, Error
		what, not = fmt.Sprintf("port %d is %s", n, svc), ", not "
	case n < 1024:
		f.Rule, f.Level = RulePortReserved, Warning
		what, not = fmt.Sprintf("port %d is in the reserved range below 1024", n), " and is not "
	}
	f.Message = what + not + defText
	if def == 0 {
		f.Message = what + " (" + defText + ")"
	}
	if svc != "" {
		f.Message += ": the server may read the URL's text as its own commands (RFC 1738 section 6)"
	}
	if slices.Contains(p.AllowPorts, n) {
		f.Level = min(f.Level, Warning)
		f.Message += "; allowed by --allow-port"
	}
	return []Finding{f}
}
