package mirror

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
)

// shardTmpSeq numbers the temporary files of claimShardDir.
var shardTmpSeq atomic.Uint64

// shardMark is the file in the state directory that says which shard a
// target directory holds, "K/N" as --shard takes it.
const shardMark = stateDir + "/shard"

// claimShardDir makes sure the target holds one shard only. Shards run
// into one directory would race on the manifest (each saving its own
// files only), and each would take the others' partial downloads for
// leftovers and remove them. So the first sharded run into a directory
// records its K/N there, atomically (written aside, then hard-linked into
// place, which fails when the mark exists), and a run of another shard,
// or of the same shard of another count, into it is refused (ErrShard).
// A run of the whole mirror removes the mark: the directory is whole then
// (the shards' trees copied together, with their merged manifest).
func claimShardDir(root *os.Root, o Options) error {
	if o.Shards <= 1 {
		if !o.DryRun {
			root.Remove(shardMark)
		}
		return nil
	}
	want := strconv.Itoa(o.Shard) + "/" + strconv.Itoa(o.Shards)
	if b, err := root.ReadFile(shardMark); err == nil {
		return checkShardMark(string(b), want)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: read %s: %v", ErrShard, shardMark, err)
	}
	if o.DryRun {
		return nil
	}
	if err := root.MkdirAll(stateDir, 0o755); err != nil {
		return fmt.Errorf("mirror: %w", err)
	}
	// A name of this run's own: runs in one process share the pid.
	tmp := fmt.Sprintf("%s.%d.%d.tmp", shardMark, os.Getpid(), shardTmpSeq.Add(1))
	if err := root.WriteFile(tmp, []byte(want+"\n"), 0o644); err != nil {
		return fmt.Errorf("mirror: %w", err)
	}
	defer root.Remove(tmp)
	if err := root.Link(tmp, shardMark); err != nil {
		// Another run made the mark first: it may be this shard again.
		b, rerr := root.ReadFile(shardMark)
		if rerr != nil {
			return fmt.Errorf("%w: mark %s: %v", ErrShard, shardMark, err)
		}
		return checkShardMark(string(b), want)
	}
	return nil
}

func checkShardMark(got, want string) error {
	got = strings.TrimSpace(got)
	if got == want {
		return nil
	}
	return fmt.Errorf("%w: shard %s: the target directory holds shard %q (see its %s): give each shard a directory of its own",
		ErrShard, want, got, shardMark)
}
