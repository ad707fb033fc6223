package mirror

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// Partial downloads live under the state directory, in a tree that mirrors
// the target's, with their remote size and time beside them so that the
// next run resumes only an unchanged file.
const (
	partialDir = stateDir + "/partial"
	partMeta   = stateDir + "/partial-meta"
)

// resumeMin is the smallest file whose partial download is kept with its
// remote size and time for the next run to resume. A smaller file is
// fetched again from its start: that costs less than the bookkeeping.
const resumeMin = 64 << 10

type partialInfo struct {
	Size    int64     `json:"size"`
	ModTime time.Time `json:"remote_time"`
	URL     string    `json:"url"`
}

// local is what the target holds at a path.
type local struct {
	exists  bool
	regular bool
	dir     bool
	size    int64
	mtime   time.Time
}

func (r *run) stat(rel string) local {
	st, err := r.dirs.lstat(rel)
	if err != nil {
		return local{}
	}
	return local{exists: true, regular: st.Mode().IsRegular(), dir: st.IsDir(), size: st.Size(), mtime: st.ModTime()}
}

// file mirrors one remote file or link.
func (r *run) file(ctx context.Context, worker int, rf remoteFile) EntryReport {
	rep := EntryReport{Path: rf.rel, URL: rf.url().Redacted()}
	loc := r.stat(rf.rel)
	if _, linksDirs := r.w.(dirLinker); loc.exists && !loc.regular && !(linksDirs && loc.dir && !r.opts.DryRun) {
		// A directory that an earlier run found behind an HTTP link
		// is fetched again: the redirect says whether it still is one.
		rep.Status, rep.Reason = StatusSkipped, "a directory or symbolic link stands at this local path"
		return rep
	}
	rec, known := r.m.get(rf.rel)
	// An archiving run counts on the manifest alone (see Syncer).
	if (known || !r.archiving) && r.unchanged(rf, loc, rec, known) {
		if !known && !r.opts.DryRun {
			r.recordExisting(rf, loc)
		}
		rep.Status = StatusUnchanged
		return rep
	}
	if r.opts.DryRun {
		rep.Status, rep.Reason = statusFor(loc), "dry run: would fetch"
		return rep
	}
	if r.full.Load() {
		return r.failed(worker, rf, rep, fmt.Errorf("not fetched: %w", errDiskFull))
	}
	if ok, bound := r.bound.admit(); !ok {
		r.stopWalk()
		return boundSkip(rf.rel, rep.URL, bound, "not fetched")
	}
	return r.download(ctx, worker, rf, loc, rec, known, rep)
}

// unchanged decides, from the listing alone, that a file need not be
// fetched: same size and remote time as recorded, or as on disk (the mirror
// sets each file's time to the remote time, so a run killed before it saved
// its manifest loses nothing).
//
// A gopher menu gives no size, but a Gopher+ server gives a time: then the
// file on disk must still have the size recorded and the time set.
func (r *run) unchanged(rf remoteFile, loc local, rec Record, known bool) bool {
	if rf.mtime.IsZero() || !loc.regular {
		return false
	}
	if rf.size < 0 {
		if known && (!rec.ModTime.Equal(rf.mtime) || rec.Size != loc.size) {
			return false
		}
		return loc.mtime.Equal(rf.mtime)
	}
	if loc.size != rf.size {
		return false
	}
	if known && rec.Size == rf.size && rec.ModTime.Equal(rf.mtime) {
		// Unless MDTM is to tell (condition).
		return !r.mdtmToTell(rf, loc, rec)
	}
	return loc.mtime.Equal(rf.mtime)
}

// askMDTM reports whether rf, whose listing shows the size and time
// recorded, is still to be checked with MDTM: the listing's time is
// coarser than MDTM's, and an earlier run recorded MDTM's time.
func askMDTM(rf remoteFile, loc local, rec Record) bool {
	return rf.coarse && !since(rec).IsZero() && loc.regular && loc.size == rec.Size && rec.Link == ""
}

// askTimes asks the times of the files of d's listing l that MDTM is to
// check (askMDTM) all at once, from a Fetcher that is a ModTimer: one
// MDTM each, sent together on one connection, instead of one round trip
// each before its retrieval. Each such file keeps the answer (checked,
// mdtm) for the worker that takes it. A dry run asks nothing; a failure
// leaves each file to ask its own MDTM (setCondition).
func (r *run) askTimes(ctx context.Context, d dirJob, l *listing) {
	mt, ok := r.f.(ModTimer)
	if !ok || r.opts.DryRun {
		return
	}
	idx, names := r.timeCandidates(l)
	if len(names) == 0 {
		return
	}
	times, err := mt.ModTimes(ctx, d.url, r.request(proto.Options{}), names)
	if err != nil || len(times) != len(names) {
		return
	}
	for j, i := range idx {
		l.files[i].checked, l.files[i].mdtm = true, times[j]
	}
}

// timeCandidates returns the files of l that MDTM is to check (askMDTM),
// by their index in l.files and their names as listed.
func (r *run) timeCandidates(l *listing) (idx []int, names []string) {
	for i, rf := range l.files {
		if !rf.coarse || rf.link != "" || rf.tail == "" {
			continue
		}
		rec, known := r.m.get(rf.rel)
		// askMDTM on the record alone first: the lstat only when it may ask.
		if !known || rec.Size != rf.size || !rec.ModTime.Equal(rf.mtime) || since(rec).IsZero() || !askMDTM(rf, r.stat(rf.rel), rec) {
			continue
		}
		name, err := uri.Unescape(rf.tail)
		if err != nil {
			continue
		}
		idx, names = append(idx, i), append(names, name)
	}
	return idx, names
}

// mdtmToTell reports whether rf, whose listing shows the size and time
// recorded, is still to be checked with MDTM (askMDTM) with its
// retrieval: not when the MDTM asked with its directory's (askTimes)
// gave a time no later than that of the copy (since); that answer is
// then recorded (confirmed).
func (r *run) mdtmToTell(rf remoteFile, loc local, rec Record) bool {
	if !askMDTM(rf, loc, rec) {
		return false
	}
	if !rf.checked || rf.mdtm.IsZero() || rf.mdtm.After(since(rec)) {
		return true
	}
	r.confirmed(rf, rec, rf.mdtm)
	return false
}

// since returns the time a version of the file no later than the copy
// has (askMDTM): MDTM's, or else when the copy was fetched.
func since(rec Record) time.Time {
	if !rec.ExactTime.IsZero() {
		return rec.ExactTime
	}
	return rec.Fetched
}

// condition returns the time to fetch a file known to the manifest on
// condition of (proto.Options.IfModifiedSince), or zero for none: the
// exact time recorded, for a file MDTM is to check (askMDTM); the time
// recorded, when the listing gave nothing to compare (an HTTP index
// page).
func condition(rf remoteFile, loc local, rec Record) time.Time {
	switch {
	case rf.size == rec.Size && rf.mtime.Equal(rec.ModTime) && askMDTM(rf, loc, rec):
		return since(rec)
	case rf.size < 0 && rf.mtime.IsZero() && loc.regular && loc.size == rec.Size && !rec.ModTime.IsZero() && rec.Link == "":
		return rec.ModTime
	}
	return time.Time{}
}

// setCondition sets the condition of req (condition); one on MDTM's time
// asks MDTM (proto.StatTime). A file whose MDTM was asked with its
// directory's (askTimes) gets none.
func setCondition(req *proto.Request, rf remoteFile, loc local, rec Record) {
	if rf.checked {
		return // MDTM told already (askTimes): the file changed
	}
	req.Options.IfModifiedSince = condition(rf, loc, rec)
	if !req.Options.IfModifiedSince.IsZero() && rf.coarse {
		req.Options.FTP.Stat = proto.StatTime
	}
}

// confirmed records that MDTM said rf did not change (mdtm, its time):
// that time is kept to compare the next answers with; or, when the
// listed minute is no longer fresh, the copy is the last version of that
// minute and the times are dropped: later runs trust the listing
// (coarseTimes).
func (r *run) confirmed(rf remoteFile, rec Record, mdtm time.Time) {
	if !rf.coarse {
		return
	}
	exact, fetched := rec.ExactTime, rec.Fetched
	rec.ExactTime, rec.Fetched = mdtm, time.Time{}
	if !rf.askTime {
		rec.ExactTime = time.Time{}
	}
	if !rec.ExactTime.Equal(exact) || !fetched.IsZero() {
		r.m.put(rf.rel, rec)
	}
}

// exactTime returns the time MDTM gave for rf's transfer (resp), or with
// its directory's (askTimes), when it was asked for a file whose listed
// minute is still fresh; zero otherwise.
func exactTime(rf remoteFile, resp *proto.Response) time.Time {
	switch {
	case !rf.askTime:
		return time.Time{}
	case rf.checked:
		return rf.mdtm // asked with its directory (askTimes)
	}
	return resp.ModTime
}

// fetchedAt returns the time rf's transfer begins, when the manifest is
// to keep it (askTime); zero otherwise.
func (r *run) fetchedAt(rf remoteFile) time.Time {
	switch {
	case !rf.askTime:
		return time.Time{}
	case r.opts.now != nil:
		return r.opts.now()
	}
	return time.Now()
}

// sameTime reports whether a transfer's time, or when it gave none the
// listing's, is recorded.
func sameTime(got, listed, recorded time.Time) bool {
	if got.IsZero() {
		got = listed
	}
	return !got.IsZero() && got.Equal(recorded)
}

func statusFor(loc local) Status {
	if loc.exists {
		return StatusUpdated
	}
	return StatusNew
}

// recordExisting adds a manifest record for a complete file found on disk.
func (r *run) recordExisting(rf remoteFile, loc local) {
	sum, err := r.hashFile(rf.rel, -1)
	if err != nil {
		return
	}
	r.m.put(rf.rel, Record{Size: loc.size, ModTime: rf.mtime, SHA256: sum, URL: rf.url().Redacted()})
}

func (r *run) hashFile(rel string, limit int64) (string, error) {
	h := sha256.New()
	if err := hashInto(r.root, rel, limit, h); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func hashInto(root *os.Root, rel string, limit int64, h hash.Hash) error {
	f, err := root.Open(rel)
	if err != nil {
		return err
	}
	defer f.Close()
	var src io.Reader = f
	if limit >= 0 {
		src = io.LimitReader(f, limit)
	}
	_, err = io.Copy(h, src)
	return err
}

// partial returns the size of an earlier partial download of rf and the
// remote size and time recorded with it, if there is one.
func (r *run) partial(rf remoteFile) (int64, partialInfo, bool) {
	r.resumableMu.Lock()
	known := r.resumable[rf.rel]
	r.resumableMu.Unlock()
	if !known {
		return 0, partialInfo{}, false
	}
	st, err := r.root.Lstat(partialDir + "/" + rf.rel)
	if err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
		return 0, partialInfo{}, false
	}
	b, err := r.root.ReadFile(partMeta + "/" + rf.rel)
	if err != nil {
		return 0, partialInfo{}, false
	}
	var pi partialInfo
	if json.Unmarshal(b, &pi) != nil || pi.Size < resumeMin || st.Size() >= pi.Size || pi.ModTime.IsZero() {
		return 0, partialInfo{}, false
	}
	return st.Size(), pi, true
}

// resumeOffset returns where an earlier partial download of rf can go on,
// or 0 when there is none or the remote file changed since. When the
// listing gave no size and time (gopher, HTTP), the offset is only a
// guess: the response's size and time must still match what the partial
// file was recorded with, which check reports.
func (r *run) resumeOffset(rf remoteFile) (offset int64, check *partialInfo) {
	if r.archiving || rf.size >= 0 && rf.size < resumeMin {
		return 0, nil // an archive records whole transfers (see Syncer)
	}
	n, pi, ok := r.partial(rf)
	switch {
	case !ok:
		return 0, nil
	case rf.size < 0 || rf.mtime.IsZero():
		if !rf.mtime.IsZero() && !pi.ModTime.Equal(rf.mtime) {
			return 0, nil // a Gopher+ Mod-Date that changed
		}
		return n, &pi
	case pi.Size != rf.size || !pi.ModTime.Equal(rf.mtime):
		return 0, nil
	}
	return n, nil
}

// download fetches rf into its partial file, verifies it, and renames it
// into place.
func (r *run) download(ctx context.Context, worker int, rf remoteFile, loc local, rec Record, known bool, rep EntryReport) EntryReport {
	fail := func(err error) EntryReport { return r.failed(worker, rf, rep, err) }
	if err := r.acquire(ctx); err != nil {
		return fail(err)
	}
	defer r.releaseSlot()
	offset, check := r.resumeOffset(rf)
	req := r.fileRequest(rf, offset, loc, rec, known)
	rf.fetched = r.fetchedAt(rf)
	resp, err := r.f.Fetch(ctx, rf.url(), req)
	if err == nil {
		if out, done := r.settled(rf, resp, loc, rec, known, rep); done {
			return out
		}
		if check != nil && resp.Offset == offset &&
			(resp.Size != check.Size || !sameTime(resp.ModTime, rf.mtime, check.ModTime)) {
			// The partial file belongs to an older version: start again.
			resp.Body.Close()
			offset, req.Offset = 0, 0
			resp, err = r.f.Fetch(ctx, rf.url(), req)
		}
	}
	if err != nil {
		return fail(err)
	}
	defer resp.Body.Close()
	if resp.Kind != proto.KindData {
		return fail(errNotFile)
	}
	rf, unchanged := r.described(rf, resp, loc, rec, known)
	if unchanged {
		rep.Status = StatusUnchanged
		return rep
	}
	if resp.Offset != offset {
		offset = 0
	}
	return r.store(worker, rf, loc, rec, known, rep, offset, resp.Body)
}

// fileRequest builds the request for rf: from offset on, and conditional
// on the local copy (setCondition) when the whole file is asked for and
// the manifest knows it.
func (r *run) fileRequest(rf remoteFile, offset int64, loc local, rec Record, known bool) *proto.Request {
	req := r.request(r.w.fileOptions(rf))
	req.Offset, req.Raw = offset, rf.raw
	if offset == 0 && known {
		setCondition(req, rf, loc, rec)
	}
	return req
}

// settled handles the answers that end the entry before any byte is
// read: a file link that redirects to a directory (see dirLinker) and a
// conditional request's "not modified". It closes resp's body when done.
func (r *run) settled(rf remoteFile, resp *proto.Response, loc local, rec Record, known bool, rep EntryReport) (EntryReport, bool) {
	if dl, ok := r.w.(dirLinker); ok && resp.Location != nil {
		if d, isDir, why := dl.redirected(rf, resp.Location); isDir || why != nil {
			resp.Body.Close()
			if why != nil {
				rep.Status, rep.Reason = StatusSkipped, why.Error()
				return rep, true
			}
			return r.asDir(rf, d, loc, known, rep), true
		}
	}
	if resp.NotModified {
		resp.Body.Close()
		r.confirmed(rf, rec, resp.ModTime)
		rep.Status = StatusUnchanged
		return rep, true
	}
	return rep, false
}

// described fills rf's unknown size and time from resp, and reports
// whether the local copy already has them: a listing without sizes
// (gopher, HTTP) learns them only from the response.
func (r *run) described(rf remoteFile, resp *proto.Response, loc local, rec Record, known bool) (remoteFile, bool) {
	size, mtime := rf.size, rf.mtime
	if size < 0 {
		size = resp.Size
	}
	if mtime.IsZero() {
		mtime = resp.ModTime
	}
	if known && loc.regular && rf.size < 0 && size >= 0 && !mtime.IsZero() &&
		rec.Size == size && rec.ModTime.Equal(mtime) && loc.size == size {
		return rf, true
	}
	rf.size, rf.mtime, rf.exact = size, mtime, exactTime(rf, resp)
	return rf, false
}

// store writes body (the file from offset on) into place: a small whole
// file through the placer, a larger one through its partial file, and
// records it in the manifest.
func (r *run) store(worker int, rf remoteFile, loc local, rec Record, known bool, rep EntryReport, offset int64, body io.ReadCloser) EntryReport {
	if offset == 0 && rf.size >= 0 && rf.size <= smallMax {
		return r.handSmall(worker, rf, loc, rec, known, rep, body)
	}
	n, sum, err := r.receive(worker, rf, offset, body)
	if err != nil {
		return r.failed(worker, rf, rep, err)
	}
	if known && loc.regular && rec.SHA256 == sum && loc.size == offset+n {
		// Same bytes as before (a server that gives no size or time).
		r.root.Remove(partialDir + "/" + rf.rel)
		rep.Status = StatusUnchanged
		return rep
	}
	if err := r.place(rf, false); err != nil {
		return r.failed(worker, rf, rep, err)
	}
	r.m.put(rf.rel, Record{Size: offset + n, ModTime: rf.mtime, ExactTime: rf.exact, Fetched: rf.fetched, SHA256: sum, URL: rf.url().Redacted()})
	rep.Status, rep.Bytes = statusFor(loc), n
	r.progress(Event{Worker: worker, Path: rf.rel, Size: rf.size, Bytes: offset + n, Done: true, Status: rep.Status})
	return rep
}

// asDir turns the file link rf into the directory d, to be walked (see
// dirLinker). A file that an earlier run kept under its name (the
// directory's index page, stored as a file) is removed with its record,
// so that the directory can take its place.
func (r *run) asDir(rf remoteFile, d dirJob, loc local, known bool, rep EntryReport) EntryReport {
	if loc.regular && known {
		if err := r.root.Remove(rf.rel); err != nil {
			rep.Status, rep.Reason = StatusFailed, "cannot replace the file by the directory: "+err.Error()
			return rep
		}
		r.m.remove(rf.rel)
	}
	r.root.Remove(partialDir + "/" + rf.rel)
	r.root.Remove(partMeta + "/" + rf.rel)
	rep.dir = &d
	return rep
}

// handSmall reads a small file whole, ends the transfer and gives the
// connection back, and hands the bytes to the placer.
func (r *run) handSmall(worker int, rf remoteFile, loc local, rec Record, known bool, rep EntryReport, body io.ReadCloser) EntryReport {
	data, sum, err := readSmall(body, rf.size)
	r.bound.received(int64(len(data)))
	if cerr := body.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return r.failed(worker, rf, rep, err)
	}
	if known && loc.regular && rec.SHA256 == sum && loc.size == rf.size {
		// Same bytes as before (a server that gives no size or time).
		rep.Status = StatusUnchanged
		return rep
	}
	r.placer.ch <- placement{rf: rf, data: data, sum: sum, loc: loc, rep: rep, worker: worker}
	rep.handed = true
	return rep
}

// failed reports rf as failed with err.
func (r *run) failed(worker int, rf remoteFile, rep EntryReport, err error) EntryReport {
	err = r.shrink(err) // while the transfer still holds its connection slot
	if diskFull(err) {
		r.noteFull(err)
	}
	rep.Status, rep.Reason, rep.err = StatusFailed, err.Error(), err
	r.progress(Event{Worker: worker, Path: rf.rel, Size: rf.size, Done: true, Status: StatusFailed})
	return rep
}

// openPartial opens the partial file of rel with flags, making its
// directory first.
func (r *run) openPartial(rel string, flags int) (*os.File, error) {
	part := partialDir + "/" + rel
	pd, err := r.dirs.open(path.Dir(part), true)
	if err != nil {
		return nil, err
	}
	return pd.root.OpenFile(path.Base(part), flags, 0o644)
}

// receive writes body into the partial file from offset on and returns the
// bytes received and the SHA-256 of the whole file.
func (r *run) receive(worker int, rf remoteFile, offset int64, body io.Reader) (int64, string, error) {
	part := partialDir + "/" + rf.rel
	if rf.size >= resumeMin && !rf.mtime.IsZero() {
		if err := r.writeMeta(rf); err != nil {
			return 0, "", err
		}
	}
	h := sha256.New()
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if offset > 0 {
		if err := hashInto(r.root, part, offset, h); err != nil {
			return 0, "", err
		}
		flags = os.O_WRONLY | os.O_APPEND
	}
	f, err := r.openPartial(rf.rel, flags)
	if err != nil {
		return 0, "", err
	}
	fw := r.writeThrough(part, f)
	var dst io.Writer = io.MultiWriter(fw, h)
	if r.opts.Progress != nil {
		dst = io.MultiWriter(fw, h, &progressWriter{r: r, ev: Event{Worker: worker, Path: rf.rel, Size: rf.size, Bytes: offset}})
	}
	// io.Copy hands the copy to the body's WriteTo (pooled buffers in the
	// client and the ftp driver).
	n, err := io.Copy(dst, body)
	r.bound.received(n)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, "", fmt.Errorf("after %d bytes: %w", offset+n, err)
	}
	if rf.size >= 0 && offset+n != rf.size {
		return n, "", fmt.Errorf("short transfer: %d of %d bytes: %w", offset+n, rf.size, io.ErrUnexpectedEOF)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

func (r *run) writeMeta(rf remoteFile) error {
	meta := partMeta + "/" + rf.rel
	if err := r.root.MkdirAll(path.Dir(meta), 0o755); err != nil {
		return err
	}
	b, _ := json.Marshal(partialInfo{Size: rf.size, ModTime: rf.mtime, URL: rf.url().Redacted()})
	if err := r.root.WriteFile(meta, b, 0o644); err != nil {
		return err
	}
	r.resumableMu.Lock()
	if r.resumable == nil {
		r.resumable = map[string]bool{}
	}
	r.resumable[rf.rel] = true
	r.resumableMu.Unlock()
	return nil
}

// findResumable lists the relative paths that have a partial file's
// record (partMeta), left by an earlier run.
func (r *run) findResumable() map[string]bool {
	found := map[string]bool{}
	fs.WalkDir(r.root.FS(), partMeta, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			found[strings.TrimPrefix(p, partMeta+"/")] = true
		}
		return nil
	})
	return found
}

// place sets the remote time on the complete partial file (unless timed
// says it is set already) and renames it to its final name.
func (r *run) place(rf remoteFile, timed bool) error {
	part := partialDir + "/" + rf.rel
	pd, err := r.dirs.open(path.Dir(part), true)
	if err != nil {
		return err
	}
	if !rf.mtime.IsZero() && !timed {
		if err := pd.root.Chtimes(path.Base(part), rf.mtime, rf.mtime); err != nil {
			return err
		}
	}
	if _, err := r.dirs.open(path.Dir(rf.rel), true); err != nil {
		return err
	}
	if err := r.dirs.rename(part, rf.rel); err != nil {
		return err
	}
	if rf.size >= resumeMin {
		r.root.Remove(partMeta + "/" + rf.rel)
	}
	return nil
}

// saveMenu keeps a gopher menu as a file, written atomically. When it
// cannot be written, the menu is reported as a failed entry (with the
// error): the gophermap is missing, or the one of an earlier run stands.
func (r *run) saveMenu(d dirJob, data []byte) {
	rel := joinRel(d.rel, menuName)
	r.markSeen(rel)
	if r.opts.DryRun {
		return
	}
	if err := r.writeMenu(d.rel, rel, data); err != nil {
		if diskFull(err) {
			r.noteFull(err)
		}
		r.sum.add(EntryReport{Path: rel, URL: d.url.Redacted(), Status: StatusFailed, Reason: "cannot keep the menu: " + err.Error()})
	}
}

// writeMenu writes data to the partial file of rel, then renames it to
// rel, in the directory dirRel. A partial file left by a failure is
// removed.
func (r *run) writeMenu(dirRel, rel string, data []byte) error {
	part := partialDir + "/" + rel
	if err := r.root.MkdirAll(path.Dir(part), 0o755); err != nil {
		return err
	}
	err := r.root.WriteFile(part, data, 0o644)
	if err == nil && dirRel != "" {
		err = r.root.MkdirAll(dirRel, 0o755)
	}
	if err == nil {
		err = r.root.Rename(part, rel)
	}
	if err != nil {
		r.root.Remove(part)
	}
	return err
}

func (r *run) progress(ev Event) {
	if r.opts.Progress != nil {
		r.opts.Progress(ev)
	}
}

// progressWriter reports bytes as they arrive.
type progressWriter struct {
	r  *run
	ev Event
}

func (p *progressWriter) Write(b []byte) (int, error) {
	p.ev.Bytes += int64(len(b))
	p.r.progress(p.ev)
	return len(b), nil
}
