package main

import (
	"cmp"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// Set at link time, for a build outside a VCS checkout or a release:
//
//	go build -ldflags "-X main.linkVersion=v1.2.3 -X main.linkCommit=$(git rev-parse HEAD) -X main.linkDate=$(date -u +%FT%TZ)"
//
// When they are empty, the build information Go stamps into the binary is
// used (the module version, and vcs.revision and vcs.time of a build
// inside a git checkout).
var linkVersion, linkCommit, linkDate string

// buildInfo is the binary's build information, nil when it has none.
func buildInfo() *debug.BuildInfo {
	bi, _ := debug.ReadBuildInfo() // nil when there is none
	return bi
}

// versionString is the version alone, for the WARC software field and
// the man pages' footer.
func versionString() string {
	if linkVersion != "" {
		return linkVersion
	}
	if bi := buildInfo(); bi != nil && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// versionLine is the line "fetch --version" and "fetch version" print:
// the version, the commit and its date. A version of "(devel)" (a build
// from a checkout) is only meaningful with the commit beside it; when the
// commit is unknown, the line says so and why.
func versionLine(version, commit, date string, bi *debug.BuildInfo) string {
	modified := false
	if bi != nil {
		version = cmp.Or(version, bi.Main.Version)
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && commit == "":
				commit = s.Value
			case s.Key == "vcs.time" && date == "":
				date = s.Value
			case s.Key == "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	var parts []string
	if version == "" || version == "(devel)" {
		parts, version = []string{"devel"}, ""
	}
	if commit == "" {
		parts = append(parts, "commit unknown: built without VCS information")
	} else {
		parts = append(parts, "commit "+commit)
		if date != "" {
			parts = append(parts, date)
		}
		if modified {
			parts = append(parts, "with uncommitted changes")
		}
	}
	if version != "" {
		version += " "
	}
	return "fetch " + version + "(" + strings.Join(parts, ", ") + ")"
}

// newVersionCmd prints what --version prints.
func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and the commit fetch was built from",
		Args:  exactArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintln(e.out, cmd.Root().Version)
			return err
		},
	}
}
