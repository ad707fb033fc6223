package mirror

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sync"
)

// smallMax is the largest file a worker reads into memory and hands to
// the placer instead of writing it itself. Creating and renaming a file
// can block for milliseconds when several threads change the same
// directories. A worker that does it itself keeps its connection idle
// meanwhile, so the archives of many small files that mirrors are made
// for would wait on the file system more than on the network.
const smallMax = 64 << 10

// placeQueue is how many received files may wait for the placer: with
// smallMax, at most a few MiB of memory.
const placeQueue = 32

// placement is a small file received whole and verified, to be written
// and renamed into place by the placer.
type placement struct {
	rf     remoteFile
	data   []byte
	sum    string
	loc    local
	rep    EntryReport
	worker int
}

// placer writes the small files the workers received, one at a time, in
// the order they came. Each is reported, and its manifest record saved,
// only once it stands under its final name. Once the run ends, every file
// received is still placed, even after a cancellation: its bytes are
// complete.
type placer struct {
	r    *run
	ch   chan placement
	done sync.WaitGroup
}

func (r *run) startPlacer() *placer {
	p := &placer{r: r, ch: make(chan placement, placeQueue)}
	p.done.Go(func() {
		for pl := range p.ch {
			r.sum.add(r.placeSmall(pl))
			r.outstanding.Done()
		}
	})
	return p
}

// stop waits for the queue to drain. No worker may hand over a file after
// it is called.
func (p *placer) stop() {
	close(p.ch)
	p.done.Wait()
}

// readSmall reads the whole body of a file of size bytes (at most
// smallMax) and its SHA-256; a body longer or shorter than size is an
// error.
func readSmall(body io.Reader, size int64) ([]byte, string, error) {
	buf := make([]byte, size+1)
	n, err := io.ReadFull(body, buf)
	switch {
	case err == nil:
		return nil, "", fmt.Errorf("long transfer: more than the %d bytes listed", size)
	case err != io.EOF && err != io.ErrUnexpectedEOF:
		return nil, "", fmt.Errorf("after %d bytes: %w", n, err)
	case int64(n) != size:
		return nil, "", fmt.Errorf("short transfer: %d of %d bytes", n, size)
	}
	s := sha256.Sum256(buf[:n])
	return buf[:n], hex.EncodeToString(s[:]), nil
}

// placeSmall writes a received file to its partial name and renames it
// into place.
func (r *run) placeSmall(pl placement) EntryReport {
	if r.full.Load() {
		return r.failed(pl.worker, pl.rf, pl.rep, fmt.Errorf("not written: %w", errDiskFull))
	}
	if err := r.writeWhole(pl.rf, pl.data); err != nil {
		return r.failed(pl.worker, pl.rf, pl.rep, err)
	}
	n := int64(len(pl.data))
	return r.record(pl.worker, pl.rf, pl.loc, pl.rep, n, n, pl.sum)
}

// writeWhole writes data, the whole file rf, to its partial file and
// renames it into place.
func (r *run) writeWhole(rf remoteFile, data []byte) error {
	f, err := r.openPartial(rf.rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return err
	}
	_, err = r.writeThrough(partialDir+"/"+rf.rel, f).Write(data)
	timed := false
	if err == nil && !rf.mtime.IsZero() {
		// Through the descriptor when the system allows it; otherwise
		// place sets the time by name.
		timed = setTimes(f, rf.mtime) == nil
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return r.place(rf, timed)
}

// record records rf, placed (total bytes, of which this run received
// got, with the SHA-256 sum), in the manifest and reports it.
func (r *run) record(worker int, rf remoteFile, loc local, rep EntryReport, total, got int64, sum string) EntryReport {
	r.m.put(rf.rel, Record{Size: total, ModTime: rf.mtime, ExactTime: rf.exact, Fetched: rf.fetched, SHA256: sum, URL: rep.URL})
	rep.Status, rep.Bytes = statusFor(loc), got
	r.progress(Event{Worker: worker, Path: rf.rel, Size: rf.size, Bytes: total, Done: true, Status: rep.Status})
	return rep
}
