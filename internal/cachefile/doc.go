// Package cachefile lays out the files a process keeps for the next one
// (what discovery read of each source, a repository's history): a magic
// line and a version byte, a body of uvarints and length-prefixed
// strings, and the SHA-256 of all of it at the end, so that a file cut
// short or changed is refused as damaged, never read as another cache.
// Such a file is only ever a cache: a reader that refuses one computes
// what it held again and writes it anew.
package cachefile
