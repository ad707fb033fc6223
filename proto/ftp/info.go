package ftp

import "github.com/rfc1738/fetch/proto"

// TypeOf returns the representation type of the data resp's body carries,
// "A" (text, line ends converted) or "I" (the stored bytes), and whether
// the driver chose "A" from the file's name (RFC 1738 section 3.2.2: no
// ;type= in the URL). typ is "" when resp is not FTP data.
func TypeOf(resp *proto.Response) (typ string, guessed bool) {
	typ, _ = resp.Info["ftp_type"].(string)
	guessed, _ = resp.Info["ftp_type_guessed"].(bool)
	return typ, guessed
}

// ListingNotes are what an FTP listing says of itself besides its entries
// (see the package documentation, "Listings").
type ListingNotes struct {
	// Format is the listing command whose reply was parsed: "mlsd",
	// "list" or "nlst"; "" when resp is not an FTP listing.
	Format string
	// Unparsed holds the lines that fit no known layout; the entries
	// are then not the whole directory.
	Unparsed []string
	// NLSTFallback says that the entries are NLST's names, each one's
	// type learnt by trying CWD.
	NLSTFallback bool
	// Truncated is the reply of a server that cut the listing short, ""
	// when the listing is whole.
	Truncated string
}

// NotesOf returns the notes of the FTP listing resp.
func NotesOf(resp *proto.Response) ListingNotes {
	var n ListingNotes
	n.Format, _ = resp.Info["ftp_listing"].(string)
	n.Unparsed, _ = resp.Info["ftp_unparsed"].([]string)
	n.NLSTFallback, _ = resp.Info["ftp_nlst_fallback"].(bool)
	n.Truncated, _ = resp.Info["ftp_truncated"].(string)
	return n
}
