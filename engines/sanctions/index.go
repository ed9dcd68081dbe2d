package sanctions

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
	"unsafe"

	"github.com/kycflow/kycflow/engines/watchlist"
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
	// Lists, when not nil, are the lists (watchlist.Entity.List) searched;
	// nil: every list in the index.
	Lists []string
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
	// derived: a spelling kycflow made, not the list (see derivation).
	derived derivation
	// letters: how many letters the person's name as listed has, and
	// which, for wholeSlip (0: none compared — a derived spelling, another
	// script, an organisation, over 255).
	letters   uint8
	letterSet uint32
	tokens    []token
}

// Index is an immutable, searchable sanctions/PEP list. Build one per list
// version; all methods are safe for concurrent use.
type Index struct {
	opts     Options
	entities []watchlist.Entity
	names    []nameRec
	nEff     []uint8    // names[i].nEff, packed: blocking reads it for every name it reaches
	titles   []titleSet // by entity: the kinds of title its names come with
	// schema and list number each name's entity's schema and list (in
	// schemas and lists), so blocking filters a name before it ranks it.
	schema, list   []uint8
	schemas, lists []string
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
	// vocabs are each list's own vocabulary, by list number (vocab
	// itself when one list is indexed): a fuzzy match is judged by the
	// words of the list its name is on, so a name common in another list
	// loaded beside it does not make a typo here look like a name.
	vocabs []*vocabulary
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
	if len(ix.vocabs) > 1 {
		for _, v := range ix.vocabs {
			mem += v.memoryBytes()
		}
	}
	return Stats{Entities: len(ix.entities), Names: len(ix.names), Keys: len(ix.keys), Postings: ix.nPostings, MemoryBytes: mem}
}

// byID is the entities ordered by id and list: name ids follow it, and
// where names tie — for the candidate bound, for the matched name —
// the lower id wins, so no result depends on the order the lists were
// loaded in.
func byID(entities []watchlist.Entity) []watchlist.Entity {
	perm := make([]int, len(entities))
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, func(a, b int) int {
		return cmp.Or(cmp.Compare(entities[a].ID, entities[b].ID), cmp.Compare(entities[a].List, entities[b].List))
	})
	out := make([]watchlist.Entity, len(entities))
	for i, j := range perm {
		out[i] = entities[j]
	}
	return out
}

// Build indexes entities. The slice is copied (entities are not); opts.MinScore
// defaults to DefaultMinScore.
func Build(entities []watchlist.Entity, opts Options) *Index {
	if opts.MinScore <= 0 {
		opts.MinScore = DefaultMinScore
	}
	ix := &Index{opts: opts, entities: byID(entities), vocab: newVocabulary()}
	var mem arena
	intern := map[string]string{}
	tokenIDs := map[token]uint32{}
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
	number := func(all *[]string, v string) uint8 {
		i := slices.Index(*all, v)
		if i < 0 {
			i = len(*all)
			*all = append(*all, v)
		}
		return uint8(min(i, 255)) // more than 255 lists or schemas share the last number: a filter then lets them all through
	}
	ix.titles = make([]titleSet, len(ix.entities))
	listNo := make([]uint8, len(ix.entities))
	for i := range ix.entities {
		listNo[i] = number(&ix.lists, ix.entities[i].List)
	}
	ix.vocabs = []*vocabulary{ix.vocab}
	if len(ix.lists) > 1 {
		ix.vocabs = make([]*vocabulary, len(ix.lists))
		for i := range ix.vocabs {
			ix.vocabs[i] = newVocabulary()
		}
	}
	// spelling indexes one spelling of entity ei's name ni.
	spelling := func(ei, ni, vi int, toks []token, nn normName, derived derivation) {
		for i := range toks {
			toks[i].s = internStr(toks[i].s)
			toks[i].c = internStr(toks[i].c)
			toks[i].alt = internStr(toks[i].alt)
			k := toks[i]
			if toks[i].id = tokenIDs[k]; toks[i].id == 0 {
				toks[i].id = uint32(len(tokenIDs) + 1)
				tokenIDs[k] = toks[i].id
			}
		}
		toks = mem.tokens(toks)
		ix.tokBytes += len(toks) * int(unsafe.Sizeof(token{}))
		ix.names = append(ix.names, nameRec{
			entity: uint32(ei), name: uint16(ni), variant: uint8(vi),
			tokens: toks, script: scriptCode(nn.script), nEff: uint8(effTokens(toks)),
			surnameFirst: nn.surnameFirst, derived: derived,
		})
		ix.titles[ei] |= nn.titles
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
	for ei := range ix.entities {
		e := &ix.entities[ei]
		org := isOrgSchema(e.Schema)
		first := len(ix.names)
		type derived struct {
			ni   int
			toks []token
			how  derivation
		}
		var made []derived
		shorten := func(ni int, toks []token, surnameFirst bool) {
			for _, d := range shortenedSpellings(toks, surnameFirst) {
				made = append(made, derived{ni, d, shortened})
			}
		}
		var halves []derived
		for ni, n := range e.Names {
			if ni > 0xFFFF {
				break
			}
			nn := normalize(n.Full, org)
			for vi, toks := range nn.variants {
				if !org && nn.script == "" {
					shorten(ni, toks, nn.surnameFirst)
					if h := halvedSpelling(toks); h != nil {
						halves = append(halves, derived{ni, h, halved})
					}
				}
				spelling(ei, ni, vi, toks, nn, asListed)
				if nr := &ix.names[len(ix.names)-1]; vi == 0 && !org {
					nr.letters, nr.letterSet = listedLetters(n.Full)
				}
			}
			if len(nn.untitled) > 0 {
				// Read with the family name a title: the person bears it.
				spelling(ei, ni, len(nn.variants), nn.untitled, nn, asListed)
				for _, t := range nn.variants[0] {
					ix.titles[ei] |= titleKinds[t.s]
				}
			}
			if f := kunyaInOrder(n.Full); !org && f != n.Full {
				for _, toks := range normalize(f, false).variants {
					made = append(made, derived{ni, toks, asListed})
					shorten(ni, toks, false)
				}
			}
		}
		if !opts.NoVocabulary {
			ix.vocab.addEntity(ix.names[first:])
			if len(ix.vocabs) > 1 {
				ix.vocabs[min(int(listNo[ei]), len(ix.vocabs)-1)].addEntity(ix.names[first:])
			}
		}
		if ix.titles[ei] != 0 {
			// Only a titled person's name is asked by a title and a
			// compound's second half (see halved).
			made = append(made, halves...)
		}
		// After the vocabulary: a spelling kycflow made up (a kunya
		// shortened or read in order) is no word the list uses.
		for _, d := range made {
			spelling(ei, d.ni, 0, d.toks, normName{}, d.how)
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
	ix.nEff = make([]uint8, len(ix.names))
	ix.schema, ix.list = make([]uint8, len(ix.names)), make([]uint8, len(ix.names))
	for i := range ix.names {
		e := &ix.entities[ix.names[i].entity]
		ix.nEff[i] = ix.names[i].nEff
		ix.schema[i], ix.list[i] = number(&ix.schemas, e.Schema), number(&ix.lists, e.List)
	}
	ix.scratch.New = func() any {
		return &scratch{
			stamp:  make([]uint32, len(ix.names)),
			done:   make([]uint32, len(ix.names)),
			words:  make([]uint16, len(ix.names)),
			strong: make([]uint16, len(ix.names)),
			exact:  make([]uint16, len(ix.names)),
			prio:   make([]float32, len(ix.names)),
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
	keyHalf     = 'h' // a compound's second half (halfKeys)
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
	return weakKeys(t, halfKeys(t, strongKeys(t, dst)))
}

// halfKeys are a kunya or Abd compound's second half as keys, and that
// half's (abuabdwadoud: abdwadoud, wadoud): the head is shared by
// thousands of names, the half names the person. A query's compound looks
// its halves up, a query's plain word itself (Ghaith for Abo Ghaith).
func halfKeys(t token, dst []uint64) []uint64 {
	for r := compoundRest(t); len(r) >= 4; r = compoundRest(token{s: r}) {
		dst = append(dst, hashKey(keyHalf, r))
	}
	return dst
}

// strongKeys are a token's keys that mean the words are within one edit:
// the word and its deletions (of its canonical spelling, without a joined
// article, and of a skeleton's other spelling too).
func strongKeys(t token, dst []uint64) []uint64 {
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
	if t.skel && t.alt != "" {
		// A skeleton's other spelling (see token.other).
		dst = strongKeys(token{s: t.alt, c: canonical(t.alt)}, dst)
	}
	return dst
}

// weakKeys are a token's keys that mean the words sound or start alike:
// its first three letters and its phonetic key (and its other spelling's).
func weakKeys(t token, dst []uint64) []uint64 {
	if !blocks(t) {
		return dst
	}
	s := t.s
	if len(s) >= 3 {
		dst = append(dst, hashKey(keyPrefix, s[:3]))
	}
	dst = append(dst, hashKey(keyPhonetic, phonetic(s)))
	if t.skel && t.alt != "" {
		dst = weakKeys(token{s: t.alt, c: canonical(t.alt)}, dst)
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
	done    []uint32 // last query that made a name a candidate
	query   uint32
	words   []uint16 // the query tokens (bits) sharing a key with a name
	strong  []uint16 // … sharing a key that puts the words within one edit
	exact   []uint16 // … sharing the word's own key: the same word (or it with a letter more)
	prio    []float32
	touched []uint32
	cands   []uint32
	order   []uint64
	df      [maxTokens]int
	keys    []uint64
	gen     uint32
	ts      tokenScorer
}

// Bounds on the names one query scores: a query of common words (Muhammad
// Ali Hassan …) shares keys with tens of thousands of names, and scoring
// them all would make its cost the caller's to choose. MaxCandidates names
// at most, and fewer for a long query: scoring a name costs in proportion
// to the query's words (in every spelling), and candidates × those words
// stays within candidateWords. Beyond the bound the names sharing the
// rarest query words are scored first (see candidates); BENCHMARKS.md has
// what the bound costs in recall and what it saves in time.
const (
	MaxCandidates  = 800
	candidateWords = 6400
)

// titledFirst is a candidate's priority for a title of the query's kind:
// more than the words-count term (at most maxTokens/1024), less than a
// shared word's.
const titledFirst = 1.0 / 64

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
	// asWritten and words order equal scores: how many of the query's
	// words the matched name holds as written, and how many it has.
	asWritten, words int
}

// sharedWords is how many of the asked words (writtenWords) name holds,
// and how many words name has.
func sharedWords(asked [][]rune, name string) (shared, words int) {
	ws, _ := writtenWords(name)
	for i, w := range asked {
		same := func(o []rune) bool { return slices.Equal(o, w) }
		if !slices.ContainsFunc(asked[:i], same) && slices.ContainsFunc(ws, same) {
			shared++
		}
	}
	return shared, len(ws)
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
			kept := dropTitleSlips(v, ix.vocab)
			// Titled when a title slip was dropped; a compound repaired
			// into one word is no title.
			qn.titled = qn.titled || len(kept) < len(v)
			qn.variants[i] = repairCompoundSlips(kept, ix.vocab)
		}
		qn.addAbulSpellings(ix.vocab)
		qn.addTitleSlipSpellings(ix.vocab)
		qn.addFamilyTitleSpellings()
		qn.commonRest = commonRest(qn, ix.vocab)
		qn.letters, qn.written = nameLetters(q.Name), q.Name
		for i, v := range qn.variants {
			// A title and one name: a rare nisba or tribe names few
			// people, so the given names a customer record leaves out
			// cost little and the hit alerts; a less rare one costs as
			// little but its people are shown as hits, none alerting,
			// and a common one ("Haji Khan") lower still: the listed
			// people with that family name and title come first.
			if (qn.titled || qn.slipAt(i).kind != 0) && len(v) == 1 && blocks(v[0]) {
				if qn.lenient == nil {
					qn.lenient = make([]leave, len(qn.variants))
				}
				switch u := ix.vocab.uses(v[0].s); {
				case u == 0:
					qn.lenient[i] = leave{one: true}
				case u < commonUses:
					qn.lenient[i] = leave{on: true, one: true, share: missingTitled}
				case u < titledUncommon:
					qn.lenient[i] = leave{on: true, one: true, share: missingTitled, most: titledShown}
				default:
					qn.lenient[i] = leave{on: true, one: true, share: missingTitled, most: titledCommon}
				}
			}
		}
	}
	sc := ix.scratch.Get().(*scratch)
	defer ix.scratch.Put(sc)
	sc.ts.reset(ix.vocab)
	sc.ts.numberUnits(qn.variants)
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
		ns, weakBound := 0.0, 0.0
		sc.ts.judgeBy(ix, id)
		for vi := range qn.variants {
			if s, _, ok := ix.spellingScore(&sc.ts, qn, vi, id, false); ok {
				ns = max(ns, s)
				weakBound = max(weakBound, sc.ts.weakBound)
			}
		}
		sc.ts.slot, sc.ts.lenient, sc.ts.weakBound = -1, leave{}, 0
		ns = max(ns, ix.wholeSlip(qn, id).score)
		if e.Names[nr.name].Kind == watchlist.NameWeak {
			// A weak alias bearing the query's title, asked by the title
			// and a name many share, is shown as its namesakes are (and
			// first among them, titled as asked), never alerting.
			ns = max(ns+malusWeakAlias, weakBound)
		}
		if nr.derived == shortened {
			ns += ix.shortenedMalus(id, qn)
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
		allowed := ix.allowed(schema, q.Lists)
		for id := range ix.names {
			if allowed.has(ix, uint32(id)) {
				consider(uint32(id))
			}
		}
	} else {
		for _, id := range ix.candidates(qn.variants, qn.titles, ix.allowed(schema, q.Lists), sc) {
			consider(id)
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
	byScore := func(a, b *candidate) int { return cmp.Compare(b.score, a.score) }
	slices.SortFunc(cands, byScore)
	// Only the names tied with the last one shown need an order among
	// equals.
	if len(cands) > limit {
		n := limit
		for n < len(cands) && cands[n].score == cands[limit-1].score {
			n++
		}
		cands = cands[:n]
	}
	asked, _ := writtenWords(q.Name)
	for _, c := range cands {
		c.asWritten, c.words = sharedWords(asked, ix.entities[c.entity].Names[ix.names[c.name].name].Full)
	}
	slices.SortFunc(cands, func(a, b *candidate) int {
		if o := byScore(a, b); o != 0 {
			return o
		}
		// Namesakes alike but for the title: the one titled as asked.
		at, bt := ix.titles[a.entity]&qn.titles != 0, ix.titles[b.entity]&qn.titles != 0
		if at != bt {
			if at {
				return -1
			}
			return 1
		}
		// Then the name holding more of the query's words as they were
		// written, then the shorter: of the 22 people "Abdul MOHAMED"
		// scores alike, MOHAMED, Abdul Kader before Abdel Basit …
		// MOHAMED. Last the id, so the order never depends on how the
		// lists were loaded.
		return cmp.Or(cmp.Compare(b.asWritten, a.asWritten), cmp.Compare(a.words, b.words),
			cmp.Compare(ix.entities[a.entity].ID, ix.entities[b.entity].ID))
	})
	cands = cands[:min(len(cands), limit)]
	hits := make([]Hit, len(cands))
	for i, c := range cands {
		hits[i] = ix.hit(c, qn, &sc.ts)
	}
	return hits
}

// candidates are the names a query scores: those of the schemas and lists
// it searches (allowed) sharing blocking keys with the query — with two or
// more blocking words on both sides, with two query words — at most
// MaxCandidates of them. Over the bound, a name's
// priority is the rarity of the query words it shares (the sum of their
// inverse frequencies among the names the query reached), then a title of
// the query's kind, then fewer words, then its id: the names that share a
// rare surname come before the
// thousands that share Muhammad and Ali. Each step is linear in the query
// words (at most maxTokens per spelling) and in the postings they reach.
// filter is which schemas and lists a query searches, by number (Index.schema, Index.list).
type filter struct{ schema, list [256]bool }

func (f *filter) has(ix *Index, id uint32) bool {
	return f.schema[ix.schema[id]] && f.list[ix.list[id]]
}

// allowed is the filter of a query of schema on lists (nil: all).
func (ix *Index) allowed(schema string, lists []string) *filter {
	f := &filter{}
	for i, s := range ix.schemas {
		f.schema[min(i, 255)] = f.schema[min(i, 255)] || schemaMatches(schema, s)
	}
	for i, l := range ix.lists {
		f.list[min(i, 255)] = f.list[min(i, 255)] || lists == nil || slices.Contains(lists, l)
	}
	return f
}

func (ix *Index) candidates(variants [][]token, titles titleSet, allowed *filter, sc *scratch) []uint32 {
	sc.cands = sc.cands[:0]
	words := 0
	for _, qv := range variants {
		words += min(len(qv), maxTokens)
	}
	limit := min(MaxCandidates, candidateWords/max(1, words))
	for _, qv := range variants {
		qv = qv[:min(len(qv), maxTokens)]
		qEff := effTokens(qv)
		sc.touched = sc.touched[:0]
		for i, t := range qv {
			sc.df[i] = 0
			if j := slices.IndexFunc(qv[:i], func(p token) bool { return p == t }); j >= 0 {
				// A repeated word reaches the names the first one did,
				// and is the same word only in a name that has it twice
				// (Tian Tian is not any Tian).
				for _, id := range sc.touched {
					if sc.words[id]&(1<<j) != 0 {
						sc.words[id] |= 1 << i
						sc.strong[id] |= sc.strong[id] & (1 << j) << (i - j)
						if twice(ix.names[id].tokens, t) {
							sc.exact[id] |= sc.exact[id] & (1 << j) << (i - j)
						}
					}
				}
				sc.df[i] = sc.df[j]
				continue
			}
			// Keys that put the words within one edit first: a name they
			// reach counts as strongly matched by this word.
			sc.keys = strongKeys(t, sc.keys[:0])
			if sc.keys = halfKeys(t, sc.keys); qEff >= 2 && blocks(t) && !t.skel {
				// A name alone is no compound's half: Nasr is not every
				// Abd al-Nasr (see halved for a title and one name).
				sc.keys = append(sc.keys, hashKey(keyHalf, t.s))
			}
			nStrong := len(sc.keys)
			sc.keys = weakKeys(t, sc.keys)
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
			for n, k := range sc.keys {
				ki, ok := ix.keys[k]
				if !ok {
					continue
				}
				var strong, exact uint16
				if n < nStrong {
					strong = 1 << i
				}
				if n == 0 && nStrong > 0 { // the word's own key (deletionKeys puts it first)
					exact = 1 << i
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
					sc.df[i]++
					if sc.words[id] == 0 {
						sc.touched = append(sc.touched, id)
					}
					sc.words[id] |= 1 << i
					sc.strong[id] |= strong
					sc.exact[id] |= exact
				}
			}
		}
		var idf [maxTokens]float32
		for i := range qv {
			if sc.df[i] > 0 {
				idf[i] = float32(math.Log(1 + float64(len(ix.names))/float64(sc.df[i])))
			}
		}
		for _, id := range sc.touched {
			w, strong, exact := sc.words[id], sc.strong[id], sc.exact[id]
			sc.words[id], sc.strong[id], sc.exact[id] = 0, 0, 0
			need := min(2, qEff, int(ix.nEff[id]))
			if bits.OnesCount16(w) < need || !allowed.has(ix, id) {
				continue
			}
			// A word within one edit counts whole, one that only sounds
			// or starts alike half, the word itself a quarter more (in
			// short names Tan, Tian and Lan are all within one edit of
			// each other); of names that share as much, those with fewer
			// words of their own come first.
			p := -float32(ix.nEff[id]) / 1024
			for ; w != 0; w &= w - 1 {
				i := bits.TrailingZeros16(w)
				if exact&(1<<i) != 0 {
					p += idf[i] / 4
				}
				if strong&(1<<i) != 0 {
					p += idf[i]
				} else {
					p += idf[i] / 2
				}
			}
			p = max(p, 0)
			if titles != 0 && ix.titles[ix.names[id].entity]&titles != 0 {
				// Of names sharing as much, those titled as asked (Haji
				// Khan among thousands of Khans): above any difference
				// in their words' count, below any in what they share.
				p += titledFirst
			}
			if sc.done[id] != sc.query {
				sc.done[id] = sc.query // scored against every spelling at once
				sc.prio[id] = p
				sc.cands = append(sc.cands, id)
			} else {
				sc.prio[id] = max(sc.prio[id], p)
			}
		}
	}
	if len(sc.cands) > limit {
		// Highest priority first, then lower id: as keys that sort as
		// integers (a priority is a non-negative float32, whose bits
		// order as it does).
		sc.order = sc.order[:0]
		for _, id := range sc.cands {
			sc.order = append(sc.order, uint64(math.Float32bits(sc.prio[id]))<<32|uint64(^id))
		}
		slices.Sort(sc.order)
		sc.cands = sc.cands[:0]
		for _, k := range sc.order[len(sc.order)-limit:] {
			sc.cands = append(sc.cands, ^uint32(k))
		}
	}
	return sc.cands
}

// hit builds the Hit, with its explanation, for a candidate.
func (ix *Index) hit(c *candidate, qn normName, ts *tokenScorer) Hit {
	nr := &ix.names[c.name]
	e := &ix.entities[nr.entity]
	n := e.Names[nr.name]
	bestS, bestDesc, weakBound := -1.0, "", 0.0
	ts.judgeBy(ix, c.name)
	for vi := range qn.variants {
		if s, d, ok := ix.spellingScore(ts, qn, vi, c.name, true); ok {
			weakBound = max(weakBound, ts.weakBound)
			if s > bestS {
				bestS, bestDesc = s, d
			}
		}
	}
	ts.slot, ts.lenient, ts.weakBound = -1, leave{}, 0
	if w := ix.wholeSlip(qn, c.name); w.score > bestS {
		bestDesc = w.explain()
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
	switch {
	case n.Kind == watchlist.NameWeak && weakBound > 0 && c.nameScore == math.Round(weakBound*1e6)/1e6:
		expl = append(expl, fmt.Sprintf("weak alias (nickname) of a person listed with the query's title: scored as the namesakes are, at most %.2f, never alerting", weakBound))
	case n.Kind == watchlist.NameWeak:
		expl = append(expl, "weak alias (nickname) "+signed(malusWeakAlias)+" included in name score")
	}
	switch nr.derived {
	case halved:
		expl = append(expl, fmt.Sprintf("compound name '%s' asked by its second half with a title the listed person bears: shown, at most %.2f, never alerting", firstCompound(n), titledGiven))
	case shortened:
		line := fmt.Sprintf("kunya or compound name '%s' asked by its first half and another of the names, as people shorten it", firstCompound(n))
		if m := ix.shortenedMalus(c.name, qn); m != 0 {
			line += ": " + signed(m) + " included in name score"
			if m == malusShortenedRare {
				line += " (a name few listed people have)"
			}
		}
		expl = append(expl, line)
	}
	if qn.titles != 0 {
		line := "title " + qn.titles.String() + " (any spelling) not compared: "
		if ix.titles[nr.entity]&qn.titles != 0 {
			line += "the listed person bears it too, and comes first among hits that score alike"
		} else {
			line += "the listed person is not listed with it"
		}
		expl = append(expl, line)
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

// twice reports whether a name's tokens hold t twice, as spelt or in its
// canonical spelling.
func twice(ts []token, t token) bool {
	n := 0
	for _, u := range ts {
		if u.s == t.s || t.c != "" && u.c == t.c {
			n++
		}
	}
	return n >= 2
}
