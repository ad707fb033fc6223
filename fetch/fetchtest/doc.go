// Package fetchtest runs small protocol servers in-process on 127.0.0.1,
// for examples, demonstrations and tests that want a real peer without
// installing one:
//
//   - FTP: StartFTP serves an afero file system read-only
//     (github.com/fclairamb/ftpserverlib), to anonymous users and one
//     optional user;
//   - gopher: StartGopher serves an fs.FS as menus and files, with Gopher+
//     headers, attribute blocks, +ASK forms and type 7 searches
//     (GopherOptions.Items);
//   - NNTP: an NNTP serves groups of numbered articles to a news reader
//     (RFC 3977 reader commands, XOVER, AUTHINFO).
//
// They are for loopback use only: they bind 127.0.0.1 (or ::1) and never
// change what they serve on a client's request.
package fetchtest
