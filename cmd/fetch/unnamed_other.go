//go:build !linux

package main

// openUnnamed: unnamed files (O_TMPFILE) are Linux's; elsewhere output
// files get a temporary name (createTemp).
func openUnnamed(string) (sink, bool) { return nil, false }
