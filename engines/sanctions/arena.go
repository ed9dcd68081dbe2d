package sanctions

import "unsafe"

// arena packs the index's long-lived small objects — its distinct words and
// each name's tokens — into large blocks. Built one by one, they would sit
// scattered among the build's garbage, and the half-empty memory pages
// around them would stay resident for the index's lifetime (about 40 MB at
// 50 000 entities).
type arena struct {
	bytes []byte
	toks  []token
}

const (
	arenaBytes  = 64 << 10
	arenaTokens = 4 << 10
)

// str returns a copy of s in the arena. Blocks are never grown in place
// (a full one is left as it is and a new one started), so the bytes behind
// a returned string never move or change.
func (a *arena) str(s string) string {
	if s == "" {
		return ""
	}
	if len(a.bytes)+len(s) > cap(a.bytes) {
		a.bytes = make([]byte, 0, max(arenaBytes, len(s)))
	}
	start := len(a.bytes)
	a.bytes = append(a.bytes, s...)
	return unsafe.String(&a.bytes[start], len(s))
}

// tokens returns a copy of ts in the arena, with no spare capacity.
func (a *arena) tokens(ts []token) []token {
	if len(a.toks)+len(ts) > cap(a.toks) {
		a.toks = make([]token, 0, max(arenaTokens, len(ts)))
	}
	start := len(a.toks)
	a.toks = append(a.toks, ts...)
	return a.toks[start:len(a.toks):len(a.toks)]
}
