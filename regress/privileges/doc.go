// Package privileges runs scripted multi-session scenarios about roles and
// privileges on a throwaway PostgreSQL 15 and on a fresh Loam server, and
// compares them statement by statement: the command tag or the error
// (SQLSTATE, message, detail, hint), the notices and warnings, and the
// result rows. PostgreSQL is the oracle; the differences Loam keeps on
// purpose are listed, with their reasons, in testdata/skip.txt.
//
// A script (testdata/*.txt) is a list of statements, each prefixed by the
// session that runs it:
//
//	loam> CREATE USER alice;
//	alice> SELECT * FROM s1.t;
//	alice@2> SELECT current_user;
//
// The session's role is the name before '@' (alice@2 is alice's second
// connection); a session connects when it first runs a statement, to the
// database loam, as that role. loam is a superuser on both servers. A
// statement runs until a line ending in ';'. Lines starting with "--" are
// comments. Lines of the form
//
//	alice> \prepare p SELECT * FROM t
//	alice> \execute p
//
// prepare and execute a statement with the extended protocol, and COPY …
// TO STDOUT / FROM STDIN run through the copy sub-protocol (with no input
// rows).
package privileges
