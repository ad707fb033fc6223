// Package servertest gives integration tests the real servers started by
// scripts/servers.sh (nginx, vsftpd, pygopherd, INN nnrpd, inetutils-telnetd,
// ProFTPD, Pure-FTPd, Apache, lighttpd, all on 127.0.0.1) and documents the
// fixture tree they serve.
//
// # Using it
//
//	s := servertest.Get(t, servertest.FTP) // skips locally, fails with CI=true, when not configured
//	url := "ftp://" + s.Addr + "/pub/hello.txt"
//
// Get reads the KEY=VALUE file named by FETCH_TEST_ENV (DIR/env, written by
// `scripts/servers.sh start DIR`); a FETCH_TEST_* variable set in the process
// wins over the file. `bash scripts/test.sh` starts the servers in a temporary
// directory, runs go test ./... with FETCH_TEST_ENV set, and stops them.
// By hand:
//
//	sudo bash scripts/servers.sh start /tmp/srv
//	FETCH_TEST_ENV=/tmp/srv/env go test ./proto/ftp/
//	sudo bash scripts/servers.sh stop /tmp/srv
//
// # Variables
//
//	FETCH_TEST_ROOT          the fixture directory DIR (layout below)
//	FETCH_TEST_NGINX         127.0.0.1:PORT  nginx 1.22, root DIR/www
//	FETCH_TEST_NGINX_TLS     127.0.0.1:PORT  the same nginx over https, HTTP/2 offered (ALPN)
//	FETCH_TEST_NGINX_TLS_CA  DIR/nginx/cert.pem, its self-signed certificate (IP 127.0.0.1)
//	FETCH_TEST_FTP           127.0.0.1:PORT  vsftpd 3.0.3, anonymous root DIR/ftp
//	FETCH_TEST_FTP_LOG       DIR/vsftpd.log, the protocol log (see FTPCommandsFrom)
//	FETCH_TEST_FTP_USER      fetchtest, a local account (shell nologin) for password logins
//	FETCH_TEST_FTP_PASS      its password: random, made once per machine (letters and digits)
//	FETCH_TEST_FTP_HOME      /home/fetchtest, its login directory
//	FETCH_TEST_FTP_PASV      FIRST-LAST, vsftpd's passive ports (50)
//	FETCH_TEST_FTPS          127.0.0.1:PORT  a second vsftpd, same tree and account, explicit TLS required
//	FETCH_TEST_FTPS_CA       DIR/vsftpd-tls/cert.pem, its self-signed certificate (IP 127.0.0.1)
//	FETCH_TEST_FTPS_LOG      DIR/vsftpd-tls.log, its protocol log (see LogCommandsFrom)
//	FETCH_TEST_GOPHER        127.0.0.1:PORT  pygopherd 3.0 (Gopher and Gopher+), root DIR/gopher
//	FETCH_TEST_NNTP          127.0.0.1:PORT  INN 2.7.1 nnrpd, reader only, tree DIR/news
//	FETCH_TEST_NNTP_RELAY    127.0.0.1:PORT  socat relay to the same nnrpd that logs the bytes
//	FETCH_TEST_NNTP_WIRE     DIR/nntp-wire.log, socat -v transcript of the relay
//	                         (a test that reads a transcript starts a relay of its
//	                         own with StartRelay: this one logs every test's bytes)
//	FETCH_TEST_TELNET        127.0.0.1:PORT  inetutils telnetd with a fake login program
//	FETCH_TEST_TELNET_USER   fetchtest
//	FETCH_TEST_TELNET_PASS   fetchtest-telnet
//	FETCH_TEST_PROFTPD       127.0.0.1:PORT  ProFTPD 1.3.8, anonymous root DIR/ftp, MLSD
//	FETCH_TEST_PROFTPD_LOG   DIR/proftpd.log, one line per command received
//	FETCH_TEST_PUREFTPD      127.0.0.1:PORT  Pure-FTPd 1.0.50, anonymous root DIR/ftp, MLSD
//	FETCH_TEST_APACHE        127.0.0.1:PORT  Apache 2.4, DIR/www at /fancy/, /table/, /plain/
//	FETCH_TEST_LIGHTTPD      127.0.0.1:PORT  lighttpd 1.4.69, DIR/www at /
//	FETCH_TEST_GOPHERNICUS   127.0.0.1:PORT  Gophernicus 3.1, root DIR/gophernicus
//
// Server names for Get: NGINX, FTP, Gopher, NNTP, Telnet, ProFTPD, PureFTPD,
// Apache, Lighttpd, Gophernicus.
//
// servers.sh needs root. Besides DIR it creates, once per machine, the account
// fetchtest (shell /usr/sbin/nologin), its password file
// /var/lib/fetch-test/ftp-password (0600) and the PAM service
// /etc/pam.d/fetch-test-ftp. scripts/test.sh puts DIR on /dev/shm when it can:
// writing the fixtures to a busy disk takes many seconds.
//
// # Fixture layout (DIR = FETCH_TEST_ROOT)
//
// scripts/fixtures.sh writes the same bytes on every run. Every file and
// directory has the modification time FixtureTime (2001-02-03 04:05:06 UTC)
// except ftp/pub/hello.txt and www/hello.txt (LaterTime, 2010-01-01 05:00:00
// UTC). Pseudo-random files are SHA-256 in counter mode, so their hashes are
// constants (Bin5MSHA256, SmallBinSHA256). lines.txt is 100 lines of
// "line NNN: the quick brown fox jumps over the lazy dog\n" (5400 bytes, LF).
//
//	DIR/ftp                      vsftpd anonymous root (read-only)
//	  etc/motd                   5 lines of text (the RFC 1738 example path)
//	  pub/hello.txt              "Hello, world!\n" (LaterTime)
//	  pub/lines.txt              for TYPE A: 5400 bytes LF; 5500 bytes CRLF in ASCII mode
//	  pub/bin5m.bin              5 MiB (Bin5MSize), Bin5MSHA256
//	  pub/small.bin              1000 bytes, SmallBinSHA256
//	  pub/with space.txt         name with a space
//	  pub/empty.txt              0 bytes
//	  pub/many/f0000.txt..f1999.txt   "file NNNN\n" each (ManyFiles)
//	  pub/tree/top.txt, a/a1.txt, a/a2.txt, a/b/b1.txt, a/b/c/deep.txt, a/b/c/c1.bin (3000 bytes), empty-dir/
//	  pub/odd/semi;colon.txt, percent%41.txt, question?mark.txt, hash#sign.txt, café.txt (UTF-8 name)
//	  pub/odd/caf\xe9.txt, na\xefve\xff.txt   names in Latin-1 bytes, not UTF-8 (0xff: the Telnet IAC byte)
//	  pub/odd/"  two lead.txt", "trail.txt ", "x -> y"   spaces at the ends; a file named like a link's line
//	  pub/welcome/.message       makes CWD welcome answer a multi-line 250- reply
//	  pub/welcome/readme.txt
//	  pub/.hidden/inside.txt     a directory that LIST shows only when asked with -a
//	  pub/noread.txt             mode 0600: RETR gives 550
//	  pub/noaccess/secret.txt    directory mode 0700: CWD gives 550
//	  pub/link-to-hello.txt      symlink to hello.txt (LIST shows "-> hello.txt")
//	  blind/open.txt
//	  blind/dark/unseen.txt      directory mode 0711: CWD succeeds, a listing cannot read it
//	/home/fetchtest              FTP local user's home (not chrooted; read-only server)
//	  hello.txt                  "Hello from the home directory of the FTP test user.\n"
//	  sub/inner.txt
//	DIR/gophernicus              Gophernicus root (directories listed by the server)
//	  hello.txt, dots.txt (".", "..two dots", "...three" lines), rand.bin (3000 bytes),
//	  ellipsis.txt ("...and then", "../up", ".." lines, no "." line),
//	  dir/a.txt, dir/sub/inner.txt, links/gophermap (a menu: links/here.txt and
//	  links/gone.txt, which does not exist), links/here.txt
//	DIR/www                      nginx root, autoindex on (dotfiles hidden)
//	  hello.txt (LaterTime), lines.txt, bin5m.bin, with space.txt, empty.txt, page.html
//	  dir/a.txt, dir/sub/b.txt, dir/sub/deeper/c.txt, dir/sub/deeper/d.bin (2048 bytes), dir/empty/
//	  names/a&b.txt, café.txt, x?y.txt, 100%.txt, with space.txt, a:b.txt, hash#sign.txt
//	                             "the file named NAME\n" each
//	  names/caf\xe9.txt          a Latin-1 name (the byte 0xe9), "a Latin-1 name\n"
//	  /redir-file                302 Location: file:///etc/passwd
//	  /redir-badport             302 Location: http://127.0.0.1:25/
//	  /redir-ok                  302 Location: http://127.0.0.1:PORT/dir/ (absolute, made by nginx)
//	  /redir-loop                302 to itself
//	DIR/gopher                   pygopherd root
//	  about.txt (+ about.txt.abstract), text.txt (+ .abstract), lines.txt, bin5m.bin,
//	  small.bin, empty.txt, with space.txt
//	  dir/ (.abstract), dir/one.txt, dir/sub/two.txt, dir/sub/deeper/three.txt, dir/empty/
//	  dir/caf\xe9.txt            a Latin-1 name (the byte 0xe9)
//	  big/item0000.txt..item1999.txt   the 2000-item menu: selector "/big"
//	  words/alpha.txt ... zulu.txt, alphabet.txt, alpine.txt   28 one-word files
//	  search                     type 7 search (selector "/search"), see below
//	  map/gophermap              Bucktooth gophermap: info lines, 0 1 7 h 8 3 9 items
//	DIR/news                     INN private tree (articles, active, newsgroups; see NewsArticles)
//	  archive.alpha, archive.beta, archive.gamma  293, 293 and 294 articles (the
//	  news mirror's groups): postings <archive-I@fetch.invalid>, I = 0..799, every
//	  tenth crossposted to a second group (one tradspool file, linked); bodies
//	  with dot-stuffed lines, "From " lines and long lines. Not in newsgroups.
//	  AddNewsArticles appends articles to one of them while nnrpd runs.
//	DIR/telnet/login             the fake login program run by telnetd
//
// text.txt (gopher) is
//
//	This is a multi-line text document served over gopher.
//	The next line is a single dot.
//	.
//	..this line starts with two dots
//	.hidden line starting with one dot
//	Last line.
//
// # vsftpd 3.0.3
//
// Anonymous login (USER anonymous or ftp) wants a PASS (no_anon_password=NO).
// The local user is checked by PAM service /etc/pam.d/fetch-test-ftp (that one
// account only); a wrong password answers 530 after about 3 s (PAM delay), so
// keep failed-login tests few. Local users
// are not chrooted: "CWD /tmp" works, so %2F paths can be tested. FEAT lists
// EPRT EPSV MDTM PASV REST STREAM SIZE TVFS; there is no MLSD/MLST (500). SIZE
// gives the binary size even in TYPE A. ascii_download_enable=YES: TYPE A
// really sends CRLF. LIST shows numeric uid/gid, hides dotfiles, and shows
// symlinks as "name -> target". MDTM of pub/hello.txt is 20100101050000.
// The greeting is "220 (vsFTPd 3.0.3)". max_clients and max_per_ip are 500;
// 8 parallel 5 MiB downloads and 200 sequential anonymous logins work (the
// logins took 22 s on a machine at load 18, so budget about 0.1 s each).
//
// The log (FETCH_TEST_FTP_LOG) has one line per command and per reply line:
//
//	Sat Nov 21 11:57:34 2026 [pid 21740] CONNECT: Client "127.0.0.1"
//	Sat Nov 21 11:57:34 2026 [pid 21740] FTP response: Client "127.0.0.1", "220 (vsFTPd 3.0.3)"
//	Sat Nov 21 11:57:34 2026 [pid 21740] FTP command: Client "127.0.0.1", "USER anonymous"
//	Sat Nov 21 11:57:34 2026 [pid 21740] [anonymous] FTP command: Client "127.0.0.1", "PASS <password>"
//	Sat Nov 21 11:57:34 2026 [pid 21739] [ftp] OK LOGIN: Client "127.0.0.1", anon password "ftp@example.com"
//	Sat Nov 21 11:57:34 2026 [pid 21741] [ftp] FTP command: Client "127.0.0.1", "CWD etc"
//	Sat Nov 21 11:57:34 2026 [pid 21741] [ftp] OK DOWNLOAD: Client "127.0.0.1", "/etc/motd", 200 bytes, 659.84Kbyte/sec
//
// Quirks: PASS is always logged as "PASS <password>", but the anonymous
// password (the e-mail address) appears in clear in the OK LOGIN line. A session
// changes pid at login (pre-login process, privileged parent, then the session
// process), so group lines by client address, not pid: see UniqueLoopback.
// Quotes inside a command are not escaped, and every byte outside printable
// ASCII (UTF-8 names too) is logged as '?'. A multi-line reply gives one
// "FTP response" line per line; the CR LF inside FEAT's lines shows as "??".
// Times are UTC, one-second resolution.
//
// # nginx 1.22
//
// autoindex listings are HTML; "/" answers 200. Redirect locations as listed
// above; nginx makes "/dir/" absolute using the Host header and the port.
//
// # pygopherd 3.0
//
// The root menu lists the directory sorted by name, with extensions stripped
// from the display names ("about.txt" shows as "about"), each item marked
// Gopher+ with a trailing "\t+", and each NAME.abstract (or DIR/.abstract)
// repeated as 'i' info lines right after the item (abstract_entries=always);
// a directory's own .abstract is also printed as 'i' lines at the top of its
// menu. So count items by type, not by line: /big has exactly 2000 '0' items
// and no info lines. Menus and files end when the server closes the
// connection: no "." line is sent, and text files go out raw (LF line ends,
// no dot-stuffing: text.txt's lone "." line arrives as "."). A client that
// stops at a lone "." loses the rest of text.txt.
//
// Gopher+: "selector\t+" returns "+SIZE\r\n" then the data (menus: "+-2");
// "selector\t!" returns "+-2" then +INFO, +ADMIN (Admin: fetch tests
// <nobody@fetch.invalid>, Mod-Date), +VIEWS and, when NAME.abstract exists,
// +ABSTRACT (about.txt, text.txt, search, dir). "selector\t$" returns the
// blocks of every item of a menu. Only the bare "!" is understood.
//
// Search (type 7): the root menu has "7Search the word list\t/search" (no
// Gopher+ mark). Send "/search\tQUERY\r\n" (Gopher+ form: "/search\tQUERY\t+"):
// the script returns a menu of "0WORD\t/words/WORD.txt\t127.0.0.1\tPORT" for
// every word containing QUERY (case-insensitive; only letters, digits and
// spaces of QUERY are used), then "iN matches for "QUERY"", then a "." line
// (the only pygopherd answer that is dot-terminated). "alp" gives alpha,
// alphabet, alpine; "zzz" gives 0 matches. An empty search string makes
// pygopherd crash on the request and close without a byte: never send a
// request that ends in an empty TAB field ("selector\t").
//
// Errors: an unknown selector gives one line
// "3'/nonexistent' does not exist (no handler found)\t\terror.host\t1".
//
// map/gophermap (Bucktooth): pygopherd rewrites relative selectors against the
// menu, so the 8 item "fetchtest" arrives as selector "/map/fetchtest" (host
// 127.0.0.1 port 23); the h item keeps "URL:http://127.0.0.1/"; the 1 item
// "/elsewhere" points at gopher.invalid:70 (never dial it); info lines come
// as "i...\tfake\t(NULL)\t0".
//
// # INN 2.7.1 nnrpd
//
// Greeting "201 fetch.invalid InterNetNews NNRP server INN 2.7.1 ready (no
// posting)"; MODE READER answers with the same 201 line. CAPABILITIES lists
// READER, OVER, HDR, LIST ACTIVE ... NEWSGROUPS ..., XPAT, STARTTLS, COMPRESS.
// Groups (LIST NEWSGROUPS gives their descriptions):
//
//	local.empty   "211 0 1 0 local.empty"
//	local.other   "211 2 1 2 local.other"    articles 1, 2
//	local.test    "211 6 1 7 local.test"     articles 1-5 and 7; 6 is missing (423)
//
// Message-IDs are "<test-N@fetch.invalid>" and "<other-N@fetch.invalid>",
// except local.test 7, "<test-7/slash+plus@fetch.invalid>". ARTICLE by
// message-id answers "220 0 <id> article". local.test 2 is the dot test: its
// body lines ".hidden line", "..two dots" and "." arrive stuffed as
// "..hidden line", "...two dots" and "..". local.test 3 has References:
// <test-1@fetch.invalid>; local.test 4 has a folded header (X-Folded) and an
// 8-bit UTF-8 body. Unknown article 423/430, unknown group 411. Dates are
// Sat, 03 Feb 2001 04:MM:06 +0000 with MM = 05 + number. nnrpd logs only to
// syslog; the relay's wire log reads
//
//	> 2026/11/21 11:57:57.000247366  length=48 from=0 to=47
//	MODE READER\r
//	< 2026/11/21 11:57:57.000250622  length=146 from=0 to=145
//	201 fetch.invalid InterNetNews NNRP server INN 2.7.1 ready (no posting)\r
//
// ("> " client to server, "< " back; CR written as the two characters \r).
// Connections from all tests share it.
//
// # Telnet
//
// telnetd negotiates options first (IAC DO TTYPE ...); a client that refuses
// everything still gets the login. Then "\r\nfetch test telnet service\r\n\r\n",
// "login: ", "Password: " (echo off). The right user and password give
// "Last login: ...\r\nWelcome, fetchtest.\r\n$ "; the prompt understands echo
// ARGS, whoami, pwd, help, exit and logout ("logout" then close), anything
// else prints "sh: NAME: command not found". A wrong login prints "Login
// incorrect" and asks again, three times at most. The pty echoes what the
// client types (except the password).
//
// # ProFTPD 1.3.8 and Pure-FTPd 1.0.50
//
// Both serve DIR/ftp anonymously and read-only, like vsftpd, and both offer
// MLSD (FEAT lists MLST): the ftp Driver lists with MLSD unless
// Driver.DisableMLSD is set. Their Debian packages conflict with vsftpd, so
// scripts/ci-deps.sh unpacks the .deb files in /var/cache/fetch-test/root and
// installs only their libraries. Both hide dot files from LIST but show them
// in MLSD (welcome/.message), with the cdir and pdir entries. SYST is
// "215 UNIX Type: L8"; MDTM of pub/hello.txt is 20100101050000; TYPE A
// really sends CRLF; RETR noread.txt and CWD noaccess answer 550.
//
// ProFTPD: greeting "220 ProFTPD Server (fetch test proftpd) [127.0.0.1]";
// USER anonymous asks for a password (331). The anonymous session runs as
// ftp, chrooted in DIR/ftp; LIST shows owner and group as "root root", MLSD
// shows UNIX.ownername=ftp and UNIX.groupname=nogroup. MLSD gives a link as
// "type=OS.unix=symlink" without its target (a mirror skips it); LIST shows
// "name -> target". SIZE in TYPE A is refused ("550 SIZE not allowed in
// ASCII mode"). FETCH_TEST_PROFTPD_LOG has one line per command:
//
//	2026-11-25 02:02:43 127.0.0.1 31994 "CWD pub" 250
//
// (date and time UTC, client address, server port, the command with PASS
// shown as "PASS (hidden)", the reply code).
//
// Pure-FTPd: a multi-line greeting ("220---------- Welcome to Pure-FTPd
// [privsep] [TLS] ----------", "220-You are user number N of 32 allowed.",
// local time, ...). USER anonymous logs in at once (230, no PASS). It caps
// its clients at half its passive range (64 ports: 32 sessions; -c is not
// enough). Its anonymous root is the home directory of the account ftp: it
// runs in a mount namespace of its own where DIR/ftp is bound over that
// directory. MLSD gives links as "type=OS.unix=slink:TARGET" and directories
// with sizd; NLST lists "." and ".." too; CWD into a directory with a
// .message answers a multi-line 250-. SIZE works in TYPE A (binary size).
// Without -z it lists dot files in MLSD but refuses to send them ("553
// Prohibited file name"); servers.sh passes -z. It writes no command log.
//
// # Apache 2.4 (mod_autoindex) and lighttpd 1.4.69 (mod_dirlisting)
//
// One Apache serves DIR/www three times, once per index style:
// /fancy/ (IndexOptions FancyIndexing: a <pre> block with sort links
// "?C=N;O=D", sizes as "14", "5.3K", "5.0M"), /table/ (FancyIndexing
// HTMLTable: one <tr> per entry) and /plain/ (a <ul> of links). Each page
// starts with a "Parent Directory" link (absolute: "/fancy/" from
// /fancy/dir/, "/" from /fancy/). "/" itself is 403. lighttpd serves DIR/www
// at /: a table with a "../" row in subdirectories, times as
// "2001-Feb-03 04:05:06", sizes rounded ("0.1K", "5.0M"), then a script.
// Both send Last-Modified, ETag and Accept-Ranges (Range requests work),
// and answer a directory without its "/" with 301 (Apache's Location is
// absolute, lighttpd's is a path).
package servertest
