// Package localserver runs scripted FTP servers in-process on 127.0.0.1
// for tests: RawFTP answers with listings written by the test, in the
// formats of many systems (SystemFTP) or with hostile names (HostileFTP).
// The well-behaved servers (FTP, gopher, NNTP) are public, in package
// github.com/rfc1738/fetch/fetch/fetchtest.
package localserver
