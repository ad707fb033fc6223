package main

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rfc1738/fetch/fetch"
)

// parseShard reads --shard K/N: K from 0 to N-1 (a Kubernetes Indexed
// Job's JOB_COMPLETION_INDEX), N from 1 to 100000. Empty means no
// sharding.
func parseShard(s string) (k, n int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	signed := strings.ContainsAny(s, "+-") // Atoi takes a sign: "+1/2" is no K/N
	if !ok || signed || err1 != nil || err2 != nil || n < 1 || n > 100000 || k < 0 || k >= n {
		return 0, 0, flagErrorf("--shard %q: want K/N with N from 1 to 100000 and K from 0 to N-1", s)
	}
	return k, n, nil
}

func newManifestCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "manifest",
		Short: "Work on mirror manifests (DIR/.fetch/manifest.json)",
		Args:  exactArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			return flagErrorf("manifest needs a subcommand: merge")
		},
	}
	var out string
	merge := &cobra.Command{
		Use:   "merge -o OUT MANIFEST|DIR...",
		Short: "Join the manifests of a sharded mirror into one",
		Long: `Join the manifests of the shards of one mirror (fetch mirror --shard K/N, each
into a directory of its own) into one manifest, written atomically to OUT: put
the shards' files together in one directory and OUT as its .fetch/manifest.json,
and the next run of fetch mirror there (without --shard) finds every file
unchanged. Each argument is a manifest file or a shard's directory. The
manifests must mirror the same URL; a file recorded by two of them must be
recorded alike.`,
		Example: `  fetch manifest merge -o all/.fetch/manifest.json shard-0 shard-1 shard-2 shard-3`,
		Args:    minArgs("MANIFEST|DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return flagErrorf("merge needs -o OUT")
			}
			return fetch.MergeManifests(out, args...)
		},
	}
	merge.Flags().StringVarP(&out, "output", "o", "", "write the merged manifest to `FILE`")
	cmd.AddCommand(merge)
	return cmd
}
