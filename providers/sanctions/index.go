package sanctions

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"
	"unsafe"

	"github.com/kycflow/kycflow/providers/watchlist"
)

// DefaultMinScore is the Options.MinScore used when none is given.
const DefaultMinScore = 0.80

// Options configure an Index.
type Options struct {
	// MinScore is the lowest final Score a hit may have (default
	// DefaultMinScore when 0).
	MinScore float64
	// HardConflict, when true, drops a hit entirely instead of lowering its
	// score when the evidence contradicts it: the query gives a full birth
	// date and every birth date listed for the entity is more than one year
	// away from it, or the query gives a nationality the entity's listed
	// nationalities do not include. Entities with no birth date or
	// nationality listed are never dropped. Use it when the query data is
	// verified (e.g. read from a passport chip); leave it off for data a
	// customer typed.
	HardConflict bool
	// NoVocabulary leaves out the list's vocabulary (see vocab.go): for an
	// index of part of a list, whose vocabulary would not be the list's.
	NoVocabulary bool
}

// Query is a name to screen, with optional evidence.
type Query struct {
	// Name is the name in any script.
	Name string
	// BirthDate is ISO, possibly partial ("1970", "1970-05"); "" if unknown.
	BirthDate string
	// Nationality is ISO 3166-1 alpha-2 ("ru"); "" if unknown.
	Nationality string
	// Schema is the kind of party screened: "Person" (default when ""),
	// "Organization", "Company", "LegalEntity", "Vessel", "Aircraft" or
	// "Thing" (anything).
	Schema string
	// HardConflict applies Options.HardConflict to this query alone.
	HardConflict bool
}

// Hit is an entity whose name matched a query.
type Hit struct {
	EntityID string
	// Entity is the listed entity (shared with the Index: do not modify).
	Entity *watchlist.Entity
	// MatchedName is the entity's name, as listed, that matched best.
	MatchedName string
	// Score is the final score, 0..1: NameScore adjusted by the evidence.
	Score float64
	// NameScore is the name similarity alone, 0..1.
	NameScore float64
	// Explanation says, one line each, which name matched and how, and
	// which evidence raised or lowered the score.
	Explanation []string
}

// nameRec is one indexed spelling of one entity name.
type nameRec struct {
	entity  uint32
	name    uint16 // index into Entity.Names
	nEff    uint8  // tokens that take part in blocking
	variant uint8  // transliteration scheme of this spelling
	script  uint8  // non-Latin script the name was written in (scripts)
	// surnameFirst: the name was written "SURNAME, Given" (see
	// normName.surnameFirst).
	surnameFirst bool
	tokens       []token
}

// Index is an immutable, searchable sanctions/PEP list. Build one per list
// version; all methods are safe for concurrent use.
type Index struct {
	opts     Options
	entities []watchlist.Entity
	names    []nameRec
	// keys maps a blocking key's hash to its number k, and its posting list is
	// postings[offsets[k]:offsets[k+1]]: name ids ascending, as varint
	// deltas (see Build).
	keys      map[uint64]uint32
	offsets   []uint32
	postings  []byte
	nPostings int
	scratch   sync.Pool
	strBytes  int
	tokBytes  int
	vocab     *vocabulary
}

// Stats describe an Index.
type Stats struct {
	Entities int // entities indexed
	Names    int // name spellings indexed (aliases and transliterations)
	Keys     int // distinct blocking keys
	Postings int // total posting entries
	// MemoryBytes approximates the memory the index holds beyond the
	// entities themselves.
	MemoryBytes int
}

// Stats reports the size of the index.
func (ix *Index) Stats() Stats {
	mem := len(ix.postings) + len(ix.offsets)*4 +
		len(ix.keys)*24 + // map entry: 8-byte key, 4-byte value, bucket overhead
		len(ix.names)*int(unsafe.Sizeof(nameRec{})) +
		ix.strBytes
	mem += ix.tokBytes + ix.vocab.memoryBytes()
	return Stats{Entities: len(ix.entities), Names: len(ix.names), Keys: len(ix.keys), Postings: ix.nPostings, MemoryBytes: mem}
}

// Build indexes entities. The slice is copied (entities are not); opts.MinScore
// defaults to DefaultMinScore.
func Build(entities []watchlist.Entity, opts Options) *Index {
	if opts.MinScore <= 0 {
		opts.MinScore = DefaultMinScore
	}
	ix := &Index{opts: opts, entities: slices.Clone(entities), vocab: newVocabulary()}
	var mem arena
	intern := map[string]string{}
	internStr := func(s string) string {
		if is, ok := intern[s]; ok {
			return is
		}
		is := mem.str(s)
		intern[is] = is
		ix.strBytes += len(s) + 16
		return is
	}
	// Pass 1: normalise every name and collect its distinct keys (flat,
	// name after name), numbering keys as they are first seen.
	// Sized from the names listed (a name has about 1.1 spellings and 30
	// keys), so that growing them leaves little garbage: what the build
	// allocates and drops sets the worker's peak memory.
	listed := 0
	for i := range entities {
		listed += len(entities[i].Names)
	}
	ix.names = make([]nameRec, 0, listed+listed/8)
	keyIdx := make(map[uint64]uint32, listed)
	nKeys := 0
	flat := make([]uint32, 0, 32*listed) // key numbers, name after name
	bounds := make([]uint32, 0, cap(ix.names))
	var keyBuf []uint64
	for ei := range ix.entities {
		e := &ix.entities[ei]
		org := isOrgSchema(e.Schema)
		first := len(ix.names)
		for ni, n := range e.Names {
			if ni > 0xFFFF {
				break
			}
			nn := normalize(n.Full, org)
			for vi, toks := range nn.variants {
				for i := range toks {
					toks[i].s = internStr(toks[i].s)
					toks[i].c = internStr(toks[i].c)
				}
				toks = mem.tokens(toks)
				ix.tokBytes += len(toks) * int(unsafe.Sizeof(token{}))
				ix.names = append(ix.names, nameRec{
					entity: uint32(ei), name: uint16(ni), variant: uint8(vi),
					tokens: toks, script: scriptCode(nn.script), nEff: uint8(effTokens(toks)),
					surnameFirst: nn.surnameFirst,
				})
				keyBuf = keyBuf[:0]
				for _, t := range toks {
					keyBuf = blockKeys(t, keyBuf)
					if blocks(t) {
						keyBuf = append(keyBuf, skeletonBlockKey(t.s))
					}
				}
				slices.Sort(keyBuf)
				keyBuf = slices.Compact(keyBuf)
				for _, k := range keyBuf {
					ki, ok := keyIdx[k]
					if !ok {
						ki = uint32(nKeys)
						keyIdx[k] = ki
						nKeys++
					}
					flat = append(flat, ki)
				}
				bounds = append(bounds, uint32(len(flat)))
			}
		}
		if !opts.NoVocabulary {
			ix.vocab.addEntity(ix.names[first:])
		}
	}
	// Pass 2: lay the postings out in one byte array, each key's name ids
	// ascending and stored as varint deltas (mostly one or two bytes
	// instead of four: the postings are the index's largest part). A first
	// walk sizes each key's run, a second fills it.
	ix.keys = keyIdx
	ix.nPostings = len(flat)
	last := make([]uint32, nKeys)
	size := make([]uint32, nKeys)
	walk := func(visit func(ki, delta uint32)) {
		clear(last)
		lo := uint32(0)
		for id, hi := range bounds {
			for _, ki := range flat[lo:hi] {
				// Ids start at 1 in last so that name 0's delta is not 0.
				visit(ki, uint32(id)+1-last[ki])
				last[ki] = uint32(id) + 1
			}
			lo = hi
		}
	}
	walk(func(ki, d uint32) { size[ki] += uint32(uvarintLen(d)) })
	ix.offsets = make([]uint32, nKeys+1)
	for i, n := range size {
		ix.offsets[i+1] = ix.offsets[i] + n
	}
	ix.postings = make([]byte, ix.offsets[nKeys])
	fill := slices.Clone(ix.offsets[:nKeys])
	walk(func(ki, d uint32) {
		fill[ki] += uint32(binary.PutUvarint(ix.postings[fill[ki]:], uint64(d)))
	})
	ix.scratch.New = func() any {
		return &scratch{
			stamp: make([]uint32, len(ix.names)),
			done:  make([]uint32, len(ix.names)),
			count: make([]uint8, len(ix.names)),
		}
	}
	return ix
}

func uvarintLen(x uint32) int {
	n := 1
	for ; x >= 0x80; x >>= 7 {
		n++
	}
	return n
}

// uvarint decodes a varint Build wrote (at most five bytes for a uint32)
// into a uint32; the search loop decodes the common one-byte case itself.
func uvarint(p []byte) (uint32, int) {
	var x uint32
	for i, b := range p {
		if b < 0x80 {
			return x | uint32(b)<<(7*i), i + 1
		}
		x |= uint32(b&0x7f) << (7 * i)
	}
	return x, len(p)
}

// blocks reports whether a token takes part in blocking: initials and
// particles match too much to select candidates.
func blocks(t token) bool { return len(t.s) >= 2 && !particles[t.s] }

func effTokens(ts []token) int {
	n := 0
	for _, t := range ts {
		if blocks(t) {
			n++
		}
	}
	return min(n, 255)
}

// Key kinds: one namespace per kind of key.
const (
	keyDeletion = 'd' // the word itself and the word minus one letter
	keyPrefix   = 'p' // first three letters
	keyPhonetic = 'f' // phonetic key
	keySkeleton = 's' // coarse consonant skeleton (skeletonBlockKey)
)

func hashKey(kind byte, s string) uint64 {
	h := uint64(14695981039346656037)
	h ^= uint64(kind)
	h *= 1099511628211
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// blockKeys appends the blocking keys of a token: the word and, from three
// letters, every one-letter deletion of it (of its raw and its canonical
// spelling) (two words within one edit —
// substitution, insertion, deletion, adjacent swap, first letter included —
// share one of these), its first three letters, and its phonetic key.
// Hash collisions only add candidates, never lose one.
func blockKeys(t token, dst []uint64) []uint64 {
	if !blocks(t) {
		return dst
	}
	s := t.s
	dst = deletionKeys(s, dst)
	if t.c != "" && t.c != s {
		// The canonical spelling too: transliteration variants
		// (Karim/Qasim → karim/kasim) are then within one edit.
		dst = deletionKeys(t.c, dst)
	}
	if len(s) >= 6 && (s[:2] == "al" || s[:2] == "el") {
		// The article may be joined (Alghamdi for al-Ghamdi): the word
		// without it too.
		dst = deletionKeys(s[2:], dst)
	}
	if len(s) >= 3 {
		dst = append(dst, hashKey(keyPrefix, s[:3]))
	}
	dst = append(dst, hashKey(keyPhonetic, phonetic(s)))
	if t.skel && t.alt != "" {
		// A skeleton's other spelling (see token.other).
		dst = blockKeys(token{s: t.alt, c: canonical(t.alt)}, dst)
	}
	return dst
}

// skeletonBlockKey is a word's coarse consonant skeleton as a blocking
// key: every listed word has one, and a query word that came from Arabic
// script looks its own up, so that a name whose letters the two
// transliteration schemes read differently word by word (وثيق as Wasiq)
// is still found.
func skeletonBlockKey(s string) uint64 {
	return hashKey(keySkeleton, coarseSkeleton(skeletonKey(s)))
}

func deletionKeys(s string, dst []uint64) []uint64 {
	dst = append(dst, hashKey(keyDeletion, s))
	if len(s) >= 3 && len(s) <= 64 && isASCII(s) {
		var buf [64]byte
		for i := range len(s) {
			b := append(append(buf[:0], s[:i]...), s[i+1:]...)
			dst = append(dst, hashKey(keyDeletion, string(b)))
		}
	}
	return dst
}

// scratch is per-query working memory, pooled.
type scratch struct {
	stamp   []uint32 // last query token that counted a name
	done    []uint32 // last query that scored a name
	query   uint32
	count   []uint8 // query tokens sharing a key with a name
	touched []uint32
	keys    []uint64
	gen     uint32
	ts      tokenScorer
}

// Search returns up to limit entities whose final score is at least
// Options.MinScore, best first (ties by entity ID). Only names sharing
// blocking keys with the query are scored: with two or more blocking words
// on both sides, a name must share keys with at least two query words.
func (ix *Index) Search(q Query, limit int) []Hit {
	return ix.search(q, limit, ix.opts.MinScore, true)
}

// BruteForce is Search without blocking: every name is scored. It is the
// reference for measuring what blocking loses.
func (ix *Index) BruteForce(q Query, limit int) []Hit {
	return ix.search(q, limit, ix.opts.MinScore, false)
}

type candidate struct {
	entity    uint32
	name      uint32
	nameScore float64
	score     float64
	ev        evidence
}

func (ix *Index) search(q Query, limit int, minScore float64, blocked bool) []Hit {
	if limit <= 0 {
		return nil
	}
	schema := q.Schema
	if schema == "" {
		schema = "Person"
	}
	org := isOrgSchema(schema)
	qn := normalize(q.Name, org)
	if len(qn.variants) == 0 {
		return nil
	}
	if !org {
		for i, v := range qn.variants {
			qn.variants[i] = dropTitleSlips(v, ix.vocab)
		}
	}
	sc := ix.scratch.Get().(*scratch)
	defer ix.scratch.Put(sc)
	sc.ts.reset(ix.vocab)
	sc.query++
	if sc.query == 0 {
		clear(sc.done)
		sc.query = 1
	}

	best := map[uint32]*candidate{}
	// consider scores name id against every query spelling.
	consider := func(id uint32) {
		nr := &ix.names[id]
		e := &ix.entities[nr.entity]
		if !schemaMatches(schema, e.Schema) {
			return
		}
		ns := 0.0
		for _, qv := range qn.variants {
			s, _ := sc.ts.nameScore(qv, nr.tokens, nr.surnameFirst, false)
			ns = max(ns, s)
		}
		if e.Names[nr.name].Kind == watchlist.NameWeak {
			ns += malusWeakAlias
		}
		if ns+maxBonus < minScore {
			return
		}
		c := best[nr.entity]
		if c == nil {
			c = &candidate{entity: nr.entity, name: id, nameScore: ns}
			best[nr.entity] = c
		} else if ns > c.nameScore || ns == c.nameScore && id < c.name {
			c.name, c.nameScore = id, ns
		}
	}

	if !blocked {
		for id := range ix.names {
			consider(uint32(id))
		}
	} else {
		sc.touched = sc.touched[:0]
		for _, qv := range qn.variants {
			qEff := effTokens(qv)
			// Count, per name, the query words sharing at least one key.
			for i, t := range qv {
				sc.keys = blockKeys(t, sc.keys[:0])
				if t.skel && blocks(t) {
					sc.keys = append(sc.keys, skeletonBlockKey(t.s))
					if t.alt != "" {
						sc.keys = append(sc.keys, skeletonBlockKey(t.alt))
					}
				}
				if i+1 < len(qv) && min(len(t.s), len(qv[i+1].s)) <= 3 && blocks(t) && blocks(qv[i+1]) {
					// A short word and the next written together (Wali
					// Jan, Walijan; see tokenScorer.joined): their
					// prefix and sounds.
					j := sc.ts.joinScratch(qv[i:i+2], false)
					sc.keys = append(sc.keys, hashKey(keyPrefix, j.s[:3]), hashKey(keyPhonetic, phonetic(j.s)), skeletonBlockKey(j.s))
				}
				if len(sc.keys) == 0 {
					continue
				}
				sc.gen++
				if sc.gen == 0 { // wrapped: reset stamps
					clear(sc.stamp)
					sc.gen = 1
				}
				for _, k := range sc.keys {
					ki, ok := ix.keys[k]
					if !ok {
						continue
					}
					p, next := ix.postings[ix.offsets[ki]:ix.offsets[ki+1]], uint32(0)
					for len(p) > 0 {
						if p[0] < 0x80 { // the common one-byte delta, inline
							next += uint32(p[0])
							p = p[1:]
						} else {
							d, n := uvarint(p)
							p, next = p[n:], next+d
						}
						id := next - 1
						if sc.stamp[id] == sc.gen {
							continue
						}
						sc.stamp[id] = sc.gen
						if sc.count[id] == 0 {
							sc.touched = append(sc.touched, id)
						}
						if sc.count[id] < 255 {
							sc.count[id]++
						}
					}
				}
			}
			for _, id := range sc.touched {
				need := min(2, qEff, int(ix.names[id].nEff))
				if int(sc.count[id]) >= need && sc.done[id] != sc.query {
					sc.done[id] = sc.query // scored against every spelling at once
					consider(id)
				}
				sc.count[id] = 0
			}
			sc.touched = sc.touched[:0]
		}
	}

	cands := make([]*candidate, 0, len(best))
	for _, c := range best {
		e := &ix.entities[c.entity]
		birthEvidence(q.BirthDate, e.BirthDates, &c.ev)
		nationalityEvidence(q.Nationality, e.Nationalities, &c.ev)
		if (ix.opts.HardConflict || q.HardConflict) && c.ev.conflict {
			continue
		}
		// Rounded to six places: a score shown as 0.88 is not 0.8799999
		// under a 0.88 threshold by the accident of float sums.
		c.nameScore = math.Round(c.nameScore*1e6) / 1e6
		c.score = max(0, min(1, math.Round((c.nameScore+c.ev.delta)*1e6)/1e6))
		if c.score >= minScore {
			cands = append(cands, c)
		}
	}
	slices.SortFunc(cands, func(a, b *candidate) int {
		if a.score != b.score {
			return cmp.Compare(b.score, a.score)
		}
		return cmp.Compare(ix.entities[a.entity].ID, ix.entities[b.entity].ID)
	})
	cands = cands[:min(len(cands), limit)]
	hits := make([]Hit, len(cands))
	for i, c := range cands {
		hits[i] = ix.hit(c, qn, &sc.ts)
	}
	return hits
}

// hit builds the Hit, with its explanation, for a candidate.
func (ix *Index) hit(c *candidate, qn normName, ts *tokenScorer) Hit {
	nr := &ix.names[c.name]
	e := &ix.entities[nr.entity]
	n := e.Names[nr.name]
	bestS, bestDesc := -1.0, ""
	for _, qv := range qn.variants {
		if s, d := ts.nameScore(qv, nr.tokens, nr.surnameFirst, true); s > bestS {
			bestS, bestDesc = s, d
		}
	}
	kind := n.Kind
	if kind == "" {
		kind = watchlist.NameAlias
	}
	how := ""
	switch {
	case nr.script != 0 && qn.script != "":
		how = fmt.Sprintf(" (%s and query %s transliterated)", scripts[nr.script], qn.script)
	case nr.script != 0:
		how = fmt.Sprintf(" (%s transliterated)", scripts[nr.script])
	case qn.script != "":
		how = fmt.Sprintf(" (query %s transliterated)", qn.script)
	}
	expl := []string{fmt.Sprintf("name: %s '%s'%s %.2f", kind, n.Full, how, c.nameScore)}
	if bestDesc != "" {
		expl = append(expl, bestDesc)
	}
	if n.Kind == watchlist.NameWeak {
		expl = append(expl, "weak alias (nickname) "+signed(malusWeakAlias)+" included in name score")
	}
	expl = append(expl, c.ev.lines...)
	return Hit{
		EntityID:    e.ID,
		Entity:      e,
		MatchedName: n.Full,
		Score:       c.score,
		NameScore:   c.nameScore,
		Explanation: expl,
	}
}
