//go:build !linux

package mirror

// syncWritten puts the files rels, written below root, on stable storage
// (a variable for the tests): one fsync each, and one of each directory
// holding them (syncEach).
var syncWritten = syncEach
