package fetch

import "github.com/rfc1738/fetch/mirror"

// ErrMirrorShard: MirrorOptions.Shard and Shards cannot work together
// (out of range, or with Delete).
var ErrMirrorShard = mirror.ErrShard

// MirrorMergeError is a file that two shards' manifests record
// differently.
type MirrorMergeError = mirror.MergeError

// ShardOf returns the shard, 0 .. n-1, that owns the mirrored file at rel
// (its path below the mirror's root, "/"-separated): the FNV-1a 64-bit
// hash of rel modulo n. See MirrorOptions.Shard.
func ShardOf(rel string, n int) int { return mirror.ShardOf(rel, n) }

// MergeManifests joins the manifests of a mirror's shards (each a
// manifest file or a shard's target directory) into the manifest file
// out, written atomically. They must mirror the same URL; a file two of
// them record must be recorded alike (a *MirrorMergeError otherwise).
func MergeManifests(out string, in ...string) error { return mirror.MergeManifests(out, in...) }
