package mirror

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/gopher"
	"github.com/rfc1738/fetch/uri"
)

// ftpWalker lists FTP directories (RFC 1738 section 3.2: a url-path that
// ends in "/" names the directory) and fetches files with an explicit
// typecode: ;type=i (byte-exact) unless the starting URL said ;type=a.
type ftpWalker struct {
	start        *uri.URL
	typecode     string
	keepVersions bool // Options.KeepVersions
	// exclude reports whether the run leaves out the file rel (its
	// Include, Exclude and shard); nil for none.
	exclude func(rel string) bool
}

// ftpTree is the walker of an ftp URL, with the run's version and
// name rules.
func ftpTree(start *uri.URL, opts Options) (walker, error) {
	w, err := newFTPWalker(start)
	if err != nil {
		return nil, err
	}
	w.keepVersions = opts.KeepVersions
	if len(opts.Exclude) > 0 || len(opts.Include) > 0 || opts.Shards > 1 {
		w.exclude = func(rel string) bool { return opts.excludes(rel, false) }
	}
	return w, nil
}

func newFTPWalker(u *uri.URL) (*ftpWalker, error) {
	v, err := u.FTP()
	if err != nil {
		return nil, err
	}
	w := &ftpWalker{typecode: "i"}
	if v.Type == "a" {
		w.typecode = "a"
	}
	p := u.Path
	if i := strings.LastIndex(p, ";"); i >= 0 && strings.LastIndexByte(p, '/') < i {
		p = p[:i]
	}
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	w.start = withPath(u, p)
	return w, nil
}

func (w *ftpWalker) startURL() *uri.URL { return w.start }

func (w *ftpWalker) fileOptions(rf remoteFile) proto.Options {
	// Sizes and times come from the listing; the driver need not ask
	// again, but checks that the transfer brings the listed size, so
	// that a data connection cut short is an error where the bytes are
	// read (and so never recorded as the file in a WARC file).
	if rf.size < 0 {
		// A listing without the size (VMS counts blocks; an MLSD line
		// may lack the size fact): the driver asks SIZE, which it
		// checks in the same way. Without it, a data connection cut
		// short and followed by 226 would be stored as the file, and
		// a later run, finding the listed time, would keep it.
		return proto.Options{FTP: proto.FTPOptions{Stat: proto.StatSize, DirectCWD: true, NoSendAhead: rf.last}}
	}
	return proto.Options{FTP: proto.FTPOptions{Stat: proto.StatNone, Size: rf.size, DirectCWD: true, NoSendAhead: rf.last}}
}

func (w *ftpWalker) list(ctx context.Context, f Fetcher, req *proto.Request, d dirJob) (*listing, error) {
	// Every name, those that begin with a dot too (LIST -a where the
	// server lists with LIST): a mirror that leaves out ".message" or a
	// ".git" tree copies less than the server holds.
	all := *req
	all.Options.FTP.ListAll = true
	// Entries with only what the mirror reads.
	all.Options.FTP.Lean = true
	// One CWD to another directory where the server allows it.
	all.Options.FTP.DirectCWD = true
	b := &ftpListing{w: w, d: d, l: &listing{}, now: time.Now()}
	notes, err := listEntries(ctx, f, &all, d.url, b.take)
	if err != nil {
		return nil, err
	}
	b.finish(notes)
	// A listing cut between two lines ends as a whole one does: Delete
	// lists the directory again before it removes anything below it.
	sum, _ := likeSum(b.l)
	b.l.menuEnd, b.l.listSum, b.l.listWhat = gopher.MenuEndClose, &sum, "listing"
	return b.l, nil
}

// listEntries lists the directory u, handing each entry to fn: as the
// listing arrives when f is a Lister that can (not errors.ErrUnsupported),
// else from f's response, read through within the request's ListingCap.
func listEntries(ctx context.Context, f Fetcher, req *proto.Request, u *uri.URL, fn func(proto.Entry) error) (*proto.Listing, error) {
	if lf, ok := f.(Lister); ok {
		notes, err := lf.List(ctx, u, req, fn)
		if !errors.Is(err, errors.ErrUnsupported) {
			return notes, err
		}
	}
	resp, _, err := fetchListing(ctx, f, req, u, false)
	if err != nil {
		return nil, err
	}
	if resp.Kind != proto.KindDirectory {
		return nil, fmt.Errorf("mirror: %s is not a directory", u.Redacted())
	}
	return proto.ListEntries(resp, fn)
}

// ftpListing builds the listing of the directory d from its entries as
// they arrive (take), keeping of each only what the run needs: the
// directories and the files it wants (not those Include and Exclude
// leave out), and the sums that identify the directory (summed), which
// every entry goes into.
type ftpListing struct {
	w   *ftpWalker
	d   dirJob
	l   *listing
	now time.Time // when it was listed (fresh)
	// Whether the listing's times are coarse (proto.Listing.CoarseTimes)
	// is known at its end: finish marks the files then.
	unique    sumAcc // entrySum
	noUnique  bool   // an entry without a unique fact
	like      sumAcc // likeSum of every entry, those excluded too
	versioned []proto.Entry
	best      map[string]int // versionless name -> index in versioned
}

// take adds one entry of the listing.
func (b *ftpListing) take(e proto.Entry) error {
	if e.Name == "." || e.Name == ".." {
		return nil
	}
	b.sumUnique(e)
	if !b.w.keepVersions && e.Extra["vms_version"] != "" && e.Type != proto.EntryDir {
		b.version(e)
		return nil
	}
	b.w.add(b.l, &b.like, b.d, e)
	return nil
}

// version keeps e, a VMS file, when its version is the highest of its
// name so far (highestVersions), where the first of them stood.
func (b *ftpListing) version(e proto.Entry) {
	if b.best == nil {
		b.best = map[string]int{}
	}
	base := versionless(e)
	i, seen := b.best[base]
	switch {
	case !seen:
		b.best[base] = len(b.versioned)
		b.versioned = append(b.versioned, e)
	case versionNumber(e) > versionNumber(b.versioned[i]):
		b.versioned[i] = e
	}
}

// sumUnique adds e to entrySum.
func (b *ftpListing) sumUnique(e proto.Entry) {
	u := e.Extra["unique"]
	if u == "" {
		b.noUnique = true
		return
	}
	if !b.noUnique {
		b.unique.add(sha256.Sum256([]byte(strconv.Quote(e.Name) + " " + string(e.Type) + " " + strconv.Quote(u) + "\n")))
	}
}

// finish adds the VMS files kept and the listing's notes, and the sums.
func (b *ftpListing) finish(notes *proto.Listing) {
	for _, e := range b.versioned {
		b.w.add(b.l, &b.like, b.d, e)
	}
	l := b.l
	l.unparsed, l.fallback = notes.Unparsed, notes.Fallback
	l.dotNames, l.truncated = notes.DotNames, notes.Truncated
	if notes.CoarseTimes {
		for i := range l.files {
			rf := &l.files[i]
			rf.coarse = rf.link == "" && !rf.mtime.IsZero()
			rf.askTime = rf.coarse && fresh(rf.mtime, b.now)
		}
	}
	if !b.noUnique && b.unique.n > 0 {
		l.unique, l.hasUnique = b.unique.sum(), true
	}
	if b.like.n > 0 {
		l.like, l.hasLike = b.like.sum(), true
	}
}

// add adds the entry e of the listing of d to l: a directory, a file or
// a link, or a skipped entry. A file that the run's Include and Exclude
// leave out is not kept (a listing of many files the run does not want
// then holds no state for them), but goes into like, as every file does:
// the listing's likeSum is that of all its entries.
func (w *ftpWalker) add(l *listing, like *sumAcc, d dirJob, e proto.Entry) {
	name := e.Name // the local name
	if !w.keepVersions {
		name = versionless(e)
	}
	rel := joinRel(d.rel, name)
	if err := checkName(name); err != nil {
		l.skip(joinRel(d.rel, quoteName(e.Name)), rel, nil, err)
		return
	}
	if err := checkFTPRel(d.rel, name, rel); err != nil {
		l.skip(rel, rel, nil, err)
		return
	}
	var rf remoteFile
	switch e.Type {
	case proto.EntryDir:
		like.dir(name)
		l.dirs = append(l.dirs, dirJob{rel: rel, url: withPath(d.url, d.url.Path+uri.Escape(e.Name, "")+"/")})
		return
	case proto.EntryLink:
		if e.Target == "" {
			l.skip(rel, "", nil, errors.New("symbolic link without a target in the listing"))
			return
		}
		rf = remoteFile{rel: rel, size: -1, link: e.Target}
	case proto.EntryFile:
		rf = remoteFile{rel: rel, size: e.Size, mtime: e.ModTime, typecode: w.typecode[0]}
	default:
		l.skip(rel, "", nil, fmt.Errorf("not a regular file (%s)", e.Type))
		return
	}
	like.file(name, rf.size, rf.mtime, rf.link)
	if w.exclude != nil && w.exclude(rel) {
		return
	}
	rf.base, rf.tail = d.url, uri.Escape(e.Name, "")
	l.files = append(l.files, rf)
}

// entrySum (ftpListing.sumUnique) identifies a directory by the names,
// types and unique facts (RFC 3659 section 7.5.2) of its entries, so that
// a link listed as the directory it leads to (pyftpdlib's MLSD: "self ->
// .", "up -> ..") is not walked again and again. A directory whose sum is
// that of one above it on the walk is that directory. The entries' facts,
// not the directory's own: no listing gives the starting directory's, and
// a server that gave every directory one fact would still not make
// different directories alike. There is none when some entry has no
// unique fact, or there is no entry: without them two directories may
// hold the same names, sizes and times. See docs/ftp.md on symbolic
// links.

// VMS keeps versions of a file side by side, and its FTP servers list
// each ("README.TXT;3", "README.TXT;2"); the ftp driver's parser gives the
// name as listed, with the version in Extra["vms_version"]. A mirror keeps
// the highest version under the name without ";n", unless it keeps them
// all (Options.KeepVersions), each under its listed name.
//
// Either way the file is retrieved by its full listed name, version
// included ("RETR README.TXT;3"): what arrives is the version the listing
// described, whose time the manifest records. A bare "RETR README.TXT"
// would also give the highest version, but the highest when the RETR
// comes: a version written between the listing and the retrieval would be
// stored with the older version's time, and the next run, seeing the same
// listing entry, would never fetch it again.

// versionless is e's name without its VMS version.
func versionless(e proto.Entry) string {
	v := e.Extra["vms_version"]
	if v == "" || e.Type == proto.EntryDir {
		return e.Name
	}
	if base, ok := strings.CutSuffix(e.Name, ";"+v); ok && base != "" {
		return base
	}
	return e.Name
}

// versionNumber is the VMS version of e (1 to 32767), or -1 when it is no
// number.
func versionNumber(e proto.Entry) int {
	n, err := strconv.Atoi(e.Extra["vms_version"])
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// checkFTPRel refuses the name of an entry of the directory dirRel that
// is the state directory's, or whose relative path rel is too long.
func checkFTPRel(dirRel, name, rel string) error {
	if dirRel == "" && isStateDir(name) {
		return errNameReserved
	}
	return checkRelLen(rel)
}

// A LIST line gives minutes or days, where MLSD and MDTM give seconds
// (RFC 3659 sections 2.3 and 7.5.3), so a file changed within its listed
// minute to content of the same size looks unchanged. When the listing
// says its times are coarse and the server has MDTM
// (proto.Listing.CoarseTimes), a re-run asks MDTM for a file fetched
// while its minute may not have closed (fresh): for all such files of a
// directory at once (run.askTimes), else with the retrieval
// (run.condition). The rule in full: docs/mirror.md, "FTP files changed
// within the listed minute".

// fresh reports whether a listed time t may be of a minute not yet
// closed at now: a LIST time is in the server's zone, which the client
// does not know, so any minute within 15 hours of now (UTC-12 to UTC+14).
func fresh(t, now time.Time) bool {
	const zones = 15 * time.Hour
	return t.After(now.Add(-zones)) && t.Before(now.Add(zones))
}
