package mirror

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rfc1738/fetch/proto"
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
		return proto.Options{FTP: proto.FTPOptions{Stat: proto.StatSize}}
	}
	return proto.Options{FTP: proto.FTPOptions{Stat: proto.StatNone, Size: rf.size}}
}

func (w *ftpWalker) list(ctx context.Context, f Fetcher, req *proto.Request, d dirJob) (*listing, error) {
	// Every name, those that begin with a dot too (LIST -a where the
	// server lists with LIST): a mirror that leaves out ".message" or a
	// ".git" tree copies less than the server holds.
	all := *req
	all.Options.FTP.ListAll = true
	// Entries with only what the mirror reads, and the listing's bytes
	// read through, not kept: the driver has parsed them.
	all.Options.FTP.Lean = true
	resp, err := drainListing(ctx, f, &all, d.url)
	if err != nil {
		return nil, err
	}
	if resp.Kind != proto.KindDirectory {
		return nil, fmt.Errorf("mirror: %s is not a directory", d.url.Redacted())
	}
	l := &listing{}
	l.unparsed, _ = resp.Info["ftp_unparsed"].([]string)
	l.fallback, _ = resp.Info["ftp_nlst_fallback"].(bool)
	l.dotNames, _ = resp.Info["ftp_dot_names"].(string)
	l.truncated, _ = resp.Info["ftp_truncated"].(string)
	coarse, now := coarseTimes(resp.Info), time.Now()
	entries := resp.Entries
	if !w.keepVersions {
		entries = highestVersions(entries)
	}
	l.unique, l.hasUnique = entrySum(entries)
	var like likeHashes
	if !l.hasUnique && w.exclude != nil {
		like = make(likeHashes, 0, len(entries))
	}
	for _, e := range entries {
		if e.Name != "." && e.Name != ".." {
			w.add(l, &like, d, e, coarse, now)
		}
	}
	if like != nil {
		l.like, l.hasLike = like.sum()
	}
	return l, nil
}

// add adds the entry e of the listing of d to l: a directory, a file or
// a link, or a skipped entry. A file that the run's Include and Exclude
// leave out is not kept (a listing of many files the run does not want
// then holds no state for them), but goes into like, when like is not
// nil, as every file does: the listing's likeSum is that of all its
// entries.
//
// coarse says that the listing's times are coarser than the server's MDTM
// (coarseTimes), now is when it was listed (fresh).
func (w *ftpWalker) add(l *listing, like *likeHashes, d dirJob, e proto.Entry, coarse bool, now time.Time) {
	name := e.Name // the local name
	if !w.keepVersions {
		name = versionless(e)
	}
	rel := joinRel(d.rel, name)
	if err := checkName(name); err != nil {
		l.skipped = append(l.skipped, named(skip(joinRel(d.rel, quoteName(e.Name)), nil, err), rel))
		return
	}
	if err := checkFTPRel(d.rel, name, rel); err != nil {
		l.skipped = append(l.skipped, named(skip(rel, nil, err), rel))
		return
	}
	var rf remoteFile
	switch e.Type {
	case proto.EntryDir:
		if *like != nil {
			like.dir(name)
		}
		l.dirs = append(l.dirs, dirJob{rel: rel, url: withPath(d.url, d.url.Path+uri.Escape(e.Name, "")+"/")})
		return
	case proto.EntryLink:
		if e.Target == "" {
			l.skipped = append(l.skipped, skip(rel, nil, errors.New("symbolic link without a target in the listing")))
			return
		}
		rf = remoteFile{rel: rel, size: -1, link: e.Target}
	case proto.EntryFile:
		c := coarse && !e.ModTime.IsZero()
		rf = remoteFile{rel: rel, size: e.Size, mtime: e.ModTime, typecode: w.typecode[0], coarse: c, askTime: c && fresh(e.ModTime, now)}
	default:
		l.skipped = append(l.skipped, skip(rel, nil, fmt.Errorf("not a regular file (%s)", e.Type)))
		return
	}
	if *like != nil {
		like.file(name, rf.size, rf.mtime, rf.link)
	}
	if w.exclude != nil && w.exclude(rel) {
		return
	}
	rf.base, rf.tail = d.url, uri.Escape(e.Name, "")
	l.files = append(l.files, rf)
}

// entrySum identifies a directory by the names, types and unique facts
// (RFC 3659 section 7.5.2) of its entries, so that a link listed as the
// directory it leads to (pyftpdlib's MLSD: "self -> .", "up -> ..") is not
// walked again and again. A directory whose sum is that of one above it on
// the walk is that directory. The entries' facts, not the directory's own:
// no listing gives the starting directory's, and a server that gave every
// directory one fact would still not make different directories alike. ok
// is false when some entry has no unique fact, or there is none: without
// them two directories may hold the same names, sizes and times. See
// docs/ftp.md on symbolic links.
func entrySum(entries []proto.Entry) (sum [sha256.Size]byte, ok bool) {
	var lines []string
	for _, e := range entries {
		if e.Name == "." || e.Name == ".." {
			continue
		}
		u := e.Extra["unique"]
		if u == "" {
			return sum, false
		}
		lines = append(lines, strconv.Quote(e.Name)+" "+string(e.Type)+" "+strconv.Quote(u)+"\n")
	}
	if len(lines) == 0 {
		return sum, false
	}
	slices.Sort(lines)
	return sha256.Sum256([]byte(strings.Join(lines, ""))), true
}

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

// highestVersions keeps, of the VMS entries that differ only in their
// version, the one with the highest version number, where the first of
// them stood; other entries are left as they are.
func highestVersions(entries []proto.Entry) []proto.Entry {
	if !slices.ContainsFunc(entries, func(e proto.Entry) bool { return e.Extra["vms_version"] != "" }) {
		return entries // not VMS
	}
	best := map[string]int{} // versionless name -> index in out
	out := make([]proto.Entry, 0, len(entries))
	for _, e := range entries {
		if e.Extra["vms_version"] == "" || e.Type == proto.EntryDir {
			out = append(out, e)
			continue
		}
		base := versionless(e)
		i, seen := best[base]
		switch {
		case !seen:
			best[base] = len(out)
			out = append(out, e)
		case versionNumber(e) > versionNumber(out[i]):
			out[i] = e
		}
	}
	return out
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

// coarseTimes reports, from a listing's Info, whether its times are
// coarser than MDTM's and the server has MDTM: a LIST line gives minutes
// or days, where MLSD and MDTM give seconds (RFC 3659 sections 2.3 and
// 7.5.3), so a file changed within its listed minute to content of the
// same size looks unchanged. For a file fetched while its minute may not
// have closed (fresh), a re-run asks MDTM: for all such files of a
// directory at once (run.askTimes), else with the retrieval
// (run.condition). The names of the NLST fallback have their times from
// MDTM already. The rule in full: docs/mirror.md, "FTP files changed
// within the listed minute".
func coarseTimes(info map[string]any) bool {
	format, _ := info["ftp_listing"].(string)
	mdtm, _ := info["ftp_mdtm"].(bool)
	fallback, _ := info["ftp_nlst_fallback"].(bool)
	return format == "list" && mdtm && !fallback
}

// fresh reports whether a listed time t may be of a minute not yet
// closed at now: a LIST time is in the server's zone, which the client
// does not know, so any minute within 15 hours of now (UTC-12 to UTC+14).
func fresh(t, now time.Time) bool {
	const zones = 15 * time.Hour
	return t.After(now.Add(-zones)) && t.Before(now.Add(zones))
}
