// Package sanctions screens names against a sanctions/PEP list in process:
// Build indexes a list version (watchlist.Entity) once, and Index.Search
// returns the listed entities whose names match a query, scored 0..1 and
// explained line by line.
//
// # Normalisation (normalize.go, translit.go)
//
// Names are lower-cased, NFKD-decomposed with diacritics dropped (й, ё,
// ї, ў are kept as letters: they are not accented и, е), and every
// character that is not a letter or digit separates words; apostrophes
// join (O'Brien is "obrien"). Cyrillic (Russian, Ukrainian, Belarusian,
// Bulgarian, Serbian, Macedonian letters), Greek (modern, with the digraphs
// ου, αυ, ευ, μπ, ντ, γκ, τζ) and Arabic (consonant skeleton) are
// transliterated by tables in translit.go under two schemes, BGN/PCGN-like
// (kh, yu, ya, y) and the common alternative (ICAO iu/ia/i, h, j for дж, x
// for кс, kh for χ, u for ου); a name is indexed and searched under both
// spellings when they differ. Honorifics (mr, dr, sheikh, haji, general,
// ...) are dropped from person names, legal forms (ltd, llc, gmbh, bv, ooo,
// ...) from organisation names, unless nothing would be left.
//
// # Name score (similarity.go)
//
// Names are compared as multisets of words, so word order does not count.
// Each query word is paired with at most one name word, greedily best pair
// first. Two words score 1 when equal, 0.90 when one is the initial of the
// other; otherwise the larger of Jaro-Winkler forwards and backwards (so a
// typo in the first letter costs what one in the last does), less a small
// penalty for different lengths, taken as at least 0.985 when both words
// have the same canonical spelling (yemelyanchuk = iemelianchouk; see
// canonical in phonetic.go), and capped by their edit distance (0.12 per
// edit up to 5 letters, 0.08 beyond, on the raw or canonical spelling), because Jaro-Winkler alone rates long words with a common
// prefix or suffix (Paropoulos, Blahopoulos) as near-equal. That similarity
// s is stretched to 1−2(1−s): a one-letter typo in a short word lands near
// 0.76, and below 0.72 the words are taken as different. Words that came
// from Arabic script are compared by consonant skeleton at 0.95. A word
// with the Arabic article joined (alghamdi) matches the word without it
// (ghamdi, four letters or more) as closely as two spellings of one name,
// as a fuzzy match the vocabulary can temper (Albert is not al-Bert).
//
// The list's vocabulary (vocab.go) tempers fuzzy matches: when the query
// word is itself a word of the list, spelled as listed, and the list never
// spells one person's name both ways (as aliases of one entity), the query
// names someone else (Yang for Wang, Pieter for Peter, Bogdanev for
// Bogdanov) rather than misspelling this name, and the pair scores 0.12
// less (explained as "itself a listed name"). Such a name stays a result to review but rarely reaches the alert
// threshold; this halves the false alerts at no cost in recall, because a
// typo seldom produces another listed word (docs/DECISIONS.md).
//
// The name score is the average of the pair scores weighted by word length
// (two letters weigh as three, capped at 8; initials and particles such
// as al, bin, van, de weigh 1), where a word left unpaired adds a share of
// its weight (capped at 5) to the denominator only: a query word the name
// lacks 1.0; a middle word of the listed name the query lacks 0.20
// (customers seldom give one; lists usually do); its first or last word
// 0.8, or 0.45 in a name of four words or more (a second surname); its
// patronymic 0.01 — one word with a patronymic's ending (-ovich, -evna,
// ...), in the middle or last in a name of three words or more ("KADYROV,
// Ramzan Akhmatovich"), never the first (surnames share the endings);
// in an anchored chain — the query holds the given name and the family
// name, each matched at 0.85 or more — the first middle word 0.10 and each
// further one, a nasab's (bin Taher) or a Sayyid too, 0.06.
// When both sides have leftover words they differ rather than omit, so
// both count in full. An initial pairs with weight 1; the rest of its word
// counts as missing at a share of 0.25. A name where only initials or
// particles agree scores 0. Weak aliases lose 0.20: alone they alert only
// when matched almost exactly.
//
// A name one edit off a listed name as a whole (wholeslip.go) — its
// letters in order, the listed one also given name first — scores at
// least 1 − 1/n for n letters (six or more), wherever the slip falls among
// the words: word by word a slip in an article or a short syllable can
// cost a whole word. Not where the slip makes a word the list uses or
// turns a title into a listed name; at most 0.84 where it makes a short
// word that reads as a name (it may be one); 0.90 where it makes a
// Korean name's syllable none Korean has (a slip for certain).
//
// # Evidence (score.go)
//
// The final Score is the best name score of the entity plus evidence,
// clamped to 0..1, and each adjustment is explained. Birth date (the most
// favourable of the listed dates): the same full date +0.05; day and month
// swapped +0.03; consistent partial dates (1970 vs 1970-05-17) +0.03; same
// year, different day −0.01; one year apart (the tolerance) −0.02; further
// apart −0.05; none listed: neutral. Nationality: listed +0.03, not listed
// −0.05, none listed: neutral. Bonuses are small so that evidence does not
// make a poor name match an alert; conflicts are as small because a typed
// or listed birth date may be wrong and clearing a listed name on it is a
// reviewer's call: a conflict ranks a hit lower and says so, but alone does
// not clear a close name match. With Options.HardConflict (for verified
// data), a conflict drops the hit instead.
//
// Schemas: a Person query matches Person, LegalEntity and Thing entities;
// an organisation query (Organization, Company, LegalEntity, PublicBody)
// matches organisation schemas and Thing; a Thing query matches anything.
//
// # Blocking (index.go)
//
// Search scores only names that share blocking keys with the query:
// per word (two letters or more, particles excluded) the word and its
// one-letter deletions (from three letters; of its raw and canonical
// spelling: any single substitution, insertion, deletion or adjacent swap,
// first letter included, leaves a deletion in common), its first three
// letters and its phonetic key (phonetic.go), and for a word starting with
// al or el, the keys of the rest too. When both the query and the
// name have two or more such words, the name must share keys with two
// query words. Postings are name ids, ascending per key and stored as
// varint deltas in one byte array (words and tokens sit in arenas:
// arena.go); keys are 64-bit FNV hashes (a collision only adds a candidate). BruteForce scores
// every name and is the reference: the tests check that blocking keeps at
// least 99.9 % of its top-10 hits.
//
// # Measured from outside
//
// The lists and queries the matcher is measured with (a generated list of
// several languages and scripts, and queries built from the real lists)
// are made in engines/screeneval, which imports nothing of this package:
// its rules for spelling, dropping and misspelling names are its own.
package sanctions
