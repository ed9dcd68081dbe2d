package watchlist

import (
	"bufio"
	"fmt"
	"sort"
	"strings"
)

// Stats summarises one parse run so an import job can log it and notice a
// list whose shape drifted (a jump in Dropped or Warnings is the first sign).
type Stats struct {
	// Entities is the number of entities passed to the callback.
	Entities int
	// Names is the number of names across those entities.
	Names int
	// Dropped counts records read but not turned into an entity: FtM
	// relationship/sanction/address records, EU rows without an id, ...
	Dropped int
	// Warnings describe data that was ignored (an unknown country name, an
	// unparseable date, ...). At most maxWarnings are kept so a badly
	// drifted list cannot grow them without bound.
	Warnings []string
}

const maxWarnings = 100

func (s *Stats) warnf(format string, args ...any) {
	if len(s.Warnings) < maxWarnings {
		s.Warnings = append(s.Warnings, fmt.Sprintf(format, args...))
	}
}

// ParseError reports malformed input and where it is, so a broken download
// can be told apart from a parser bug.
type ParseError struct {
	Format Format
	// Line is the 1-based line of the input where the bad record starts
	// (0 when unknown). For OFAC it is the line within File.
	Line int
	// File names the OFAC file ("sdn", "alt", "add"); empty otherwise.
	File string
	Err  error
}

func (e *ParseError) Error() string {
	where := string(e.Format)
	if e.File != "" {
		where += " " + e.File
	}
	if e.Line > 0 {
		return fmt.Sprintf("watchlist: %s line %d: %v", where, e.Line, e.Err)
	}
	return fmt.Sprintf("watchlist: %s: %v", where, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// skipBOM drops a leading UTF-8 byte order mark: Excel-made and some
// government exports start with one and it would otherwise stick to the
// first header name or break the JSON/XML decoders.
func skipBOM(br *bufio.Reader) {
	if b, err := br.Peek(3); err == nil && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		_, _ = br.Discard(3)
	}
}

// cleanSpace trims and collapses internal whitespace; lists are
// inconsistent about double spaces and a matcher should not care.
func cleanSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func normGender(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "m", "male":
		return "male"
	case "f", "female":
		return "female"
	}
	return ""
}

func appendUnique(list []string, v string) []string {
	if v == "" {
		return list
	}
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

var kindRank = map[string]int{NamePrimary: 0, NameAlias: 1, NameWeak: 2, NamePrevious: 3}

// builder accumulates one entity from many records or properties and
// enforces the Entity invariants (one primary first, each name once, no
// duplicate values) in one place for every format.
type builder struct {
	e         Entity
	nameIndex map[string]int
}

func newBuilder(id, schema string) *builder {
	return &builder{e: Entity{ID: id, Schema: schema}, nameIndex: map[string]int{}}
}

// addName adds n once by its Full form. A second "primary" becomes an
// alias, so callers can offer every strong name as a primary candidate and
// the first wins; a repeated name keeps its strongest kind.
func (b *builder) addName(n Name) {
	n.Full = cleanSpace(n.Full)
	n.First, n.Middle, n.Last = cleanSpace(n.First), cleanSpace(n.Middle), cleanSpace(n.Last)
	if n.Full == "" {
		n.Full = cleanSpace(strings.Join([]string{n.First, n.Middle, n.Last}, " "))
	}
	if n.Full == "" {
		return
	}
	if n.Kind == "" {
		n.Kind = NameAlias
	}
	if n.Kind == NamePrimary {
		for _, x := range b.e.Names {
			if x.Kind == NamePrimary && x.Full != n.Full {
				n.Kind = NameAlias
				break
			}
		}
	}
	if i, ok := b.nameIndex[n.Full]; ok {
		old := &b.e.Names[i]
		if kindRank[n.Kind] < kindRank[old.Kind] {
			old.Kind = n.Kind
		}
		if old.First == "" && old.Middle == "" && old.Last == "" {
			old.First, old.Middle, old.Last = n.First, n.Middle, n.Last
		}
		return
	}
	b.nameIndex[n.Full] = len(b.e.Names)
	b.e.Names = append(b.e.Names, n)
}

// Reader names how this kycflow reads lists: an import of files already
// imported is a no-op unless Reader changed since (store: a version is its
// files and the reader). Change it with any change to what a parser makes
// of a list's files.
const Reader = "2026-11-28" // UN aliases: spellings apart, "FAMILY, Given" turned round

// addListedName adds a name as a list writes it; a person's "LAST, First
// Middle" also gets its parts (First the first given name, Middle the
// rest) and its natural order "First Middle LAST" as an alias, so matchers
// that compare whole strings find it too. A generation after the comma
// is no given name (SANTOS, III) and goes last (MEZA, JR., Arturo:
// Arturo MEZA JR.).
func (b *builder) addListedName(full, kind string, person bool) {
	n := Name{Full: full, Kind: kind}
	last, given, ok := strings.Cut(full, ",")
	last, given = strings.TrimSpace(last), strings.TrimSpace(given)
	suffix := ""
	if gen, rest, ok := strings.Cut(given, ","); ok && generations[strings.ToLower(strings.Trim(gen, ". "))] {
		suffix, given = " "+strings.TrimSpace(gen), strings.TrimSpace(rest) // MEZA, JR., Arturo
	}
	if !person || !ok || last == "" || given == "" || generations[strings.ToLower(strings.Trim(given, "."))] {
		b.addName(n)
		return
	}
	n.Last = last
	n.First, n.Middle, _ = strings.Cut(given, " ")
	b.addName(n)
	natural := n
	natural.Full = given + " " + last + suffix
	if kind == NamePrimary {
		natural.Kind = NameAlias
	}
	b.addName(natural)
}

var generations = map[string]bool{"jr": true, "sr": true, "ii": true, "iii": true, "iv": true}

func (b *builder) addBirthDate(d string)   { b.e.BirthDates = appendUnique(b.e.BirthDates, d) }
func (b *builder) addNationality(c string) { b.e.Nationalities = appendUnique(b.e.Nationalities, c) }
func (b *builder) addCountry(c string)     { b.e.Countries = appendUnique(b.e.Countries, c) }
func (b *builder) addTopic(t string)       { b.e.Topics = appendUnique(b.e.Topics, strings.TrimSpace(t)) }
func (b *builder) addProgram(p string)     { b.e.Programs = appendUnique(b.e.Programs, cleanSpace(p)) }

func (b *builder) setGender(g string) {
	if g = normGender(g); g != "" && b.e.Gender == "" {
		b.e.Gender = g
	}
}

// finish orders the names primary, aliases, weak aliases, previous names
// (keeping list order within a kind) and promotes the first name to primary
// when the list marked none, e.g. an EU entity whose every alias is weak.
func (b *builder) finish() Entity {
	e := b.e
	hasPrimary := false
	for _, n := range e.Names {
		if n.Kind == NamePrimary {
			hasPrimary = true
		}
	}
	sort.SliceStable(e.Names, func(i, j int) bool { return kindRank[e.Names[i].Kind] < kindRank[e.Names[j].Kind] })
	if !hasPrimary && len(e.Names) > 0 {
		e.Names[0].Kind = NamePrimary
	}
	return e
}

// emit hands a finished entity to fn and counts it.
func emit(st *Stats, b *builder, fn func(Entity) error) error {
	e := b.finish()
	st.Entities++
	st.Names += len(e.Names)
	return fn(e)
}

// Merge folds other into e, for callers that receive one entity in parts
// (see ParseEUFSF on non-consecutive rows). Names, dates, countries, topics
// and programmes are unioned; e's ID, Schema and Gender win when set.
func (e *Entity) Merge(other Entity) {
	b := newBuilder(e.ID, e.Schema)
	if b.e.ID == "" {
		b.e.ID = other.ID
	}
	if b.e.Schema == "" {
		b.e.Schema = other.Schema
	}
	b.e.Gender = e.Gender
	for _, src := range []Entity{*e, other} {
		for _, n := range src.Names {
			b.addName(n)
		}
		for _, v := range src.BirthDates {
			b.addBirthDate(v)
		}
		for _, v := range src.Nationalities {
			b.addNationality(v)
		}
		for _, v := range src.Countries {
			b.addCountry(v)
		}
		for _, v := range src.Topics {
			b.addTopic(v)
		}
		for _, v := range src.Programs {
			b.addProgram(v)
		}
	}
	b.setGender(other.Gender)
	*e = b.finish()
}
