package mrz

import (
	"reflect"
	"strings"
	"testing"
)

// pos is a 1-based MRZ position, as Doc 9303 numbers them.
type pos struct{ line, pos int }

// checkPos is a check digit of a specimen, located by hand from the Doc 9303
// tables (not by the package's layout code).
type checkPos struct {
	field     Field
	at        pos
	composite bool // the digit is itself covered by the composite check digit
}

// dataRange is a run of characters covered by a check digit: mutating one
// must fail field's check digit (FieldComposite alone: only the composite
// covers it) and, if composite, the composite as well.
type dataRange struct {
	field      Field
	line       int
	from, to   int // 1-based, inclusive
	composite  bool
	dateDigits bool // a YYMMDD date: mutate to a digit that keeps it valid
}

// handSum is a check digit worked out by hand: the weighted sum (weights
// 7, 3, 1; A=10 … Z=35; '<'=0) and the digit it gives, which must be the
// digit printed at `at` in the specimen.
type handSum struct {
	data string
	sum  int
	at   pos
}

type specimen struct {
	name   string
	source string
	lines  []string
	want   Document // fields compared: all but Lines, Corrections
	checks []checkPos
	data   []dataRange
	sums   []handSum
}

// specimens are the documents the tests run on. "published" ones are
// copied from ICAO Doc 9303 as reproduced, character for character, by many
// independent MRZ libraries; all check digits are re-verified by hand in
// sums. "constructed" ones were put together here with check digits computed
// by hand.
var specimens = []specimen{
	{
		name: "TD3 Utopia passport",
		// Published: ICAO Doc 9303 part 4 (TD3 / MRP), specimen of the
		// fictional state Utopia, holder Anna Maria Eriksson.
		source: "ICAO 9303 part 4",
		lines: []string{
			"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
			"L898902C36UTO7408122F1204159ZE184226B<<<<<10",
		},
		want: Document{
			Format: TD3, DocumentCode: "P", IssuingState: "UTO", DocumentNumber: "L898902C3",
			Surname: "ERIKSSON", GivenNames: "ANNA MARIA", Nationality: "UTO",
			BirthDate: Date{"740812", 74, 8, 12}, Sex: "F", ExpiryDate: Date{"120415", 12, 4, 15},
			OptionalData1: "ZE184226B",
			CheckDigits:   CheckDigits{DocumentNumber: '6', BirthDate: '2', ExpiryDate: '9', PersonalNumber: '1', Composite: '0'},
		},
		checks: []checkPos{
			{FieldDocumentNumber, pos{2, 10}, true},
			{FieldBirthDate, pos{2, 20}, true},
			{FieldExpiryDate, pos{2, 28}, true},
			{FieldPersonalNumber, pos{2, 43}, true},
			{FieldComposite, pos{2, 44}, false},
		},
		data: []dataRange{
			{FieldDocumentNumber, 2, 1, 9, true, false},
			{FieldBirthDate, 2, 14, 19, true, true},
			{FieldExpiryDate, 2, 22, 27, true, true},
			{FieldPersonalNumber, 2, 29, 42, true, false},
		},
		sums: []handSum{
			// L=21·7 + 8·3 + 9·1 + 8·7 + 9·3 + 0·1 + 2·7 + C=12·3 + 3·1
			// = 147+24+9+56+27+0+14+36+3
			{"L898902C3", 316, pos{2, 10}},
			// 7·7 + 4·3 + 0·1 + 8·7 + 1·3 + 2·1 = 49+12+0+56+3+2
			{"740812", 122, pos{2, 20}},
			// 1·7 + 2·3 + 0·1 + 4·7 + 1·3 + 5·1 = 7+6+0+28+3+5
			{"120415", 49, pos{2, 28}},
			// Z=35·7 + E=14·3 + 1·1 + 8·7 + 4·3 + 2·1 + 2·7 + 6·3 + B=11·1
			// = 245+42+1+56+12+2+14+18+11
			{"ZE184226B<<<<<", 401, pos{2, 43}},
			// line 2 positions 1–10, 14–20, 22–43
			{"L898902C36" + "7408122" + "1204159ZE184226B<<<<<1", 880, pos{2, 44}},
		},
	},
	{
		name: "TD1 Utopia ID card",
		// Published: ICAO Doc 9303 part 5 (TD1), Utopia specimen.
		source: "ICAO 9303 part 5",
		lines: []string{
			"I<UTOD231458907<<<<<<<<<<<<<<<",
			"7408122F1204159UTO<<<<<<<<<<<6",
			"ERIKSSON<<ANNA<MARIA<<<<<<<<<<",
		},
		want: Document{
			Format: TD1, DocumentCode: "I", IssuingState: "UTO", DocumentNumber: "D23145890",
			Surname: "ERIKSSON", GivenNames: "ANNA MARIA", Nationality: "UTO",
			BirthDate: Date{"740812", 74, 8, 12}, Sex: "F", ExpiryDate: Date{"120415", 12, 4, 15},
			CheckDigits: CheckDigits{DocumentNumber: '7', BirthDate: '2', ExpiryDate: '9', Composite: '6'},
		},
		checks: []checkPos{
			{FieldDocumentNumber, pos{1, 15}, true},
			{FieldBirthDate, pos{2, 7}, true},
			{FieldExpiryDate, pos{2, 15}, true},
			{FieldComposite, pos{2, 30}, false},
		},
		data: []dataRange{
			{FieldDocumentNumber, 1, 6, 14, true, false},
			{FieldComposite, 1, 16, 30, false, false}, // optional data 1
			{FieldBirthDate, 2, 1, 6, true, true},
			{FieldExpiryDate, 2, 9, 14, true, true},
			{FieldComposite, 2, 19, 29, false, false}, // optional data 2
		},
		sums: []handSum{
			// D=13·7 + 2·3 + 3·1 + 1·7 + 4·3 + 5·1 + 8·7 + 9·3 + 0·1
			// = 91+6+3+7+12+5+56+27+0
			{"D23145890", 207, pos{1, 15}},
			{"740812", 122, pos{2, 7}},
			{"120415", 49, pos{2, 15}},
			// line 1 positions 6–30, line 2 positions 1–7, 9–15, 19–29
			{"D231458907<<<<<<<<<<<<<<<" + "7408122" + "1204159" + "<<<<<<<<<<<", 376, pos{2, 30}},
		},
	},
	{
		name: "TD2 Utopia ID card",
		// Published: ICAO Doc 9303 part 6 (TD2), Utopia specimen.
		source: "ICAO 9303 part 6",
		lines: []string{
			"I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<",
			"D231458907UTO7408122F1204159<<<<<<<6",
		},
		want: Document{
			Format: TD2, DocumentCode: "I", IssuingState: "UTO", DocumentNumber: "D23145890",
			Surname: "ERIKSSON", GivenNames: "ANNA MARIA", Nationality: "UTO",
			BirthDate: Date{"740812", 74, 8, 12}, Sex: "F", ExpiryDate: Date{"120415", 12, 4, 15},
			CheckDigits: CheckDigits{DocumentNumber: '7', BirthDate: '2', ExpiryDate: '9', Composite: '6'},
		},
		checks: []checkPos{
			{FieldDocumentNumber, pos{2, 10}, true},
			{FieldBirthDate, pos{2, 20}, true},
			{FieldExpiryDate, pos{2, 28}, true},
			{FieldComposite, pos{2, 36}, false},
		},
		data: []dataRange{
			{FieldDocumentNumber, 2, 1, 9, true, false},
			{FieldBirthDate, 2, 14, 19, true, true},
			{FieldExpiryDate, 2, 22, 27, true, true},
			{FieldComposite, 2, 29, 35, false, false}, // optional data
		},
		sums: []handSum{
			{"D23145890", 207, pos{2, 10}},
			{"740812", 122, pos{2, 20}},
			{"120415", 49, pos{2, 28}},
			// line 2 positions 1–10, 14–20, 22–35
			{"D231458907" + "7408122" + "1204159<<<<<<<", 376, pos{2, 36}},
		},
	},
	{
		name: "TD1 long document number",
		// Published: ICAO Doc 9303 part 11, appendix D.2 (worked BAC
		// example, holder Peter John Stevenson): document number
		// D23145890734; the '<' in line 1 position 15 announces the overflow
		// "734" + check digit 9 in the optional data.
		source: "ICAO 9303 part 11 appendix D.2",
		lines: []string{
			"I<UTOD23145890<7349<<<<<<<<<<<",
			"3407127M9507122UTO<<<<<<<<<<<2",
			"STEVENSON<<PETER<JOHN<<<<<<<<<",
		},
		want: Document{
			Format: TD1, DocumentCode: "I", IssuingState: "UTO", DocumentNumber: "D23145890734",
			Surname: "STEVENSON", GivenNames: "PETER JOHN", Nationality: "UTO",
			BirthDate: Date{"340712", 34, 7, 12}, Sex: "M", ExpiryDate: Date{"950712", 95, 7, 12},
			CheckDigits: CheckDigits{DocumentNumber: '9', BirthDate: '7', ExpiryDate: '2', Composite: '2'},
		},
		checks: []checkPos{
			{FieldDocumentNumber, pos{1, 19}, true},
			{FieldBirthDate, pos{2, 7}, true},
			{FieldExpiryDate, pos{2, 15}, true},
			{FieldComposite, pos{2, 30}, false},
		},
		data: []dataRange{
			{FieldDocumentNumber, 1, 6, 14, true, false},
			{FieldDocumentNumber, 1, 16, 18, true, false}, // the overflow "734"
			// Position 20 is left out: a character there would extend the
			// overflow and move the check digit.
			{FieldComposite, 1, 21, 30, false, false},
			{FieldBirthDate, 2, 1, 6, true, true},
			{FieldExpiryDate, 2, 9, 14, true, true},
			{FieldComposite, 2, 19, 29, false, false},
		},
		sums: []handSum{
			// D=13·7 + 2·3 + 3·1 + 1·7 + 4·3 + 5·1 + 8·7 + 9·3 + 0·1
			// + 7·7 + 3·3 + 4·1 = 207 + 49+9+4
			{"D23145890734", 269, pos{1, 19}},
			// 3·7 + 4·3 + 0·1 + 7·7 + 1·3 + 2·1 = 21+12+0+49+3+2
			{"340712", 87, pos{2, 7}},
			// 9·7 + 5·3 + 0·1 + 7·7 + 1·3 + 2·1 = 63+15+0+49+3+2
			{"950712", 132, pos{2, 15}},
			{"D23145890<7349<<<<<<<<<<<" + "3407127" + "9507122" + "<<<<<<<<<<<", 422, pos{2, 30}},
		},
	},
	{
		name: "TD1 long document number, part 5 lines 2-3",
		// Constructed: the part 11 long-number line 1 with the part 5
		// specimen's lines 2 and 3. The composite stays 6: the overflow adds
		// 7·3+3·1+4·7+9·3 = 79 where the specimen had 7·7 = 49, the same
		// modulo 10.
		source: "constructed",
		lines: []string{
			"I<UTOD23145890<7349<<<<<<<<<<<",
			"7408122F1204159UTO<<<<<<<<<<<6",
			"ERIKSSON<<ANNA<MARIA<<<<<<<<<<",
		},
		want: Document{
			Format: TD1, DocumentCode: "I", IssuingState: "UTO", DocumentNumber: "D23145890734",
			Surname: "ERIKSSON", GivenNames: "ANNA MARIA", Nationality: "UTO",
			BirthDate: Date{"740812", 74, 8, 12}, Sex: "F", ExpiryDate: Date{"120415", 12, 4, 15},
			CheckDigits: CheckDigits{DocumentNumber: '9', BirthDate: '2', ExpiryDate: '9', Composite: '6'},
		},
		checks: []checkPos{
			{FieldDocumentNumber, pos{1, 19}, true},
			{FieldBirthDate, pos{2, 7}, true},
			{FieldExpiryDate, pos{2, 15}, true},
			{FieldComposite, pos{2, 30}, false},
		},
		data: []dataRange{
			{FieldDocumentNumber, 1, 6, 14, true, false},
			{FieldDocumentNumber, 1, 16, 18, true, false},
			{FieldComposite, 1, 21, 30, false, false},
		},
		sums: []handSum{
			{"D23145890734", 269, pos{1, 19}},
			{"740812", 122, pos{2, 7}},
			{"120415", 49, pos{2, 15}},
			{"D23145890<7349<<<<<<<<<<<" + "7408122" + "1204159" + "<<<<<<<<<<<", 406, pos{2, 30}},
		},
	},
	{
		name: "TD2 long document number",
		// Published: ICAO Doc 9303 part 11, appendix D.2, TD2 form of the
		// same example: overflow "734" + check digit 9 in positions 29–32.
		source: "ICAO 9303 part 11 appendix D.2",
		lines: []string{
			"I<UTOSTEVENSON<<PETER<JOHN<<<<<<<<<<",
			"D23145890<UTO3407127M95071227349<<<8",
		},
		want: Document{
			Format: TD2, DocumentCode: "I", IssuingState: "UTO", DocumentNumber: "D23145890734",
			Surname: "STEVENSON", GivenNames: "PETER JOHN", Nationality: "UTO",
			BirthDate: Date{"340712", 34, 7, 12}, Sex: "M", ExpiryDate: Date{"950712", 95, 7, 12},
			CheckDigits: CheckDigits{DocumentNumber: '9', BirthDate: '7', ExpiryDate: '2', Composite: '8'},
		},
		checks: []checkPos{
			{FieldDocumentNumber, pos{2, 32}, true},
			{FieldBirthDate, pos{2, 20}, true},
			{FieldExpiryDate, pos{2, 28}, true},
			{FieldComposite, pos{2, 36}, false},
		},
		data: []dataRange{
			{FieldDocumentNumber, 2, 1, 9, true, false},
			{FieldDocumentNumber, 2, 29, 31, true, false},
			{FieldBirthDate, 2, 14, 19, true, true},
			{FieldExpiryDate, 2, 22, 27, true, true},
			{FieldComposite, 2, 34, 35, false, false},
		},
		sums: []handSum{
			{"D23145890734", 269, pos{2, 32}},
			{"340712", 87, pos{2, 20}},
			{"950712", 132, pos{2, 28}},
			// line 2 positions 1–10, 14–20, 22–35
			{"D23145890<" + "3407127" + "95071227349<<<", 468, pos{2, 36}},
		},
	},
	{
		name: "TD1 German ID card",
		// Published: the German identity card specimen (Erika Mustermann,
		// 2010 model) as reproduced by many MRZ libraries: issuing state and
		// nationality "D<<", sex '<' (German ID cards do not show it).
		source: "German ID card specimen (BSI / Bundesdruckerei)",
		lines: []string{
			"IDD<<T220001293<<<<<<<<<<<<<<<",
			"6408125<2010315D<<<<<<<<<<<<<4",
			"MUSTERMANN<<ERIKA<<<<<<<<<<<<<",
		},
		want: Document{
			Format: TD1, DocumentCode: "ID", IssuingState: "D", DocumentNumber: "T22000129",
			Surname: "MUSTERMANN", GivenNames: "ERIKA", Nationality: "D",
			BirthDate: Date{"640812", 64, 8, 12}, Sex: "X", ExpiryDate: Date{"201031", 20, 10, 31},
			CheckDigits: CheckDigits{DocumentNumber: '3', BirthDate: '5', ExpiryDate: '5', Composite: '4'},
		},
		checks: []checkPos{
			{FieldDocumentNumber, pos{1, 15}, true},
			{FieldBirthDate, pos{2, 7}, true},
			{FieldExpiryDate, pos{2, 15}, true},
			{FieldComposite, pos{2, 30}, false},
		},
		data: []dataRange{
			{FieldDocumentNumber, 1, 6, 14, true, false},
			{FieldComposite, 1, 16, 30, false, false},
			{FieldBirthDate, 2, 1, 6, true, true},
			{FieldExpiryDate, 2, 9, 14, true, true},
			{FieldComposite, 2, 19, 29, false, false},
		},
		sums: []handSum{
			// T=29·7 + 2·3 + 2·1 + 0·7 + 0·3 + 0·1 + 1·7 + 2·3 + 9·1
			// = 203+6+2+0+0+0+7+6+9
			{"T22000129", 233, pos{1, 15}},
			// 6·7 + 4·3 + 0·1 + 8·7 + 1·3 + 2·1 = 42+12+0+56+3+2
			{"640812", 115, pos{2, 7}},
			// 2·7 + 0·3 + 1·1 + 0·7 + 3·3 + 1·1 = 14+0+1+0+9+1
			{"201031", 25, pos{2, 15}},
			{"T220001293<<<<<<<<<<<<<<<" + "6408125" + "2010315" + "<<<<<<<<<<<", 364, pos{2, 30}},
		},
	},
	{
		name: "TD3 German passport",
		// Published: the German passport specimen (Erika Mustermann) as
		// reproduced by MRZ libraries. Its personal number is empty and its
		// check digit is '<', which Doc 9303 part 4 allows.
		source: "German passport specimen (Bundesdruckerei)",
		lines: []string{
			"P<D<<MUSTERMANN<<ERIKA<<<<<<<<<<<<<<<<<<<<<<",
			"C01X00T478D<<6408125F2702283<<<<<<<<<<<<<<<4",
		},
		want: Document{
			Format: TD3, DocumentCode: "P", IssuingState: "D", DocumentNumber: "C01X00T47",
			Surname: "MUSTERMANN", GivenNames: "ERIKA", Nationality: "D",
			BirthDate: Date{"640812", 64, 8, 12}, Sex: "F", ExpiryDate: Date{"270228", 27, 2, 28},
			CheckDigits: CheckDigits{DocumentNumber: '8', BirthDate: '5', ExpiryDate: '3', PersonalNumber: '<', Composite: '4'},
		},
		checks: []checkPos{
			{FieldDocumentNumber, pos{2, 10}, true},
			{FieldBirthDate, pos{2, 20}, true},
			{FieldExpiryDate, pos{2, 28}, true},
			{FieldComposite, pos{2, 44}, false},
			// The personal-number check digit '<' is mutated in
			// TestPersonalNumberFillerCheckDigit.
		},
		data: []dataRange{
			{FieldDocumentNumber, 2, 1, 9, true, false},
			{FieldBirthDate, 2, 14, 19, true, true},
			{FieldExpiryDate, 2, 22, 27, true, true},
			{FieldPersonalNumber, 2, 29, 42, true, false},
		},
		sums: []handSum{
			// C=12·7 + 0·3 + 1·1 + X=33·7 + 0·3 + 0·1 + T=29·7 + 4·3 + 7·1
			// = 84+0+1+231+0+0+203+12+7
			{"C01X00T47", 538, pos{2, 10}},
			{"640812", 115, pos{2, 20}},
			// 2·7 + 7·3 + 0·1 + 2·7 + 2·3 + 8·1 = 14+21+0+14+6+8
			{"270228", 63, pos{2, 28}},
			{"C01X00T478" + "6408125" + "2702283<<<<<<<<<<<<<<<", 764, pos{2, 44}},
		},
	},
	{
		name: "TD3 Dutch passport",
		// Published: the Netherlands passport specimen (Willeke Liselotte de
		// Bruijn) as reproduced by MRZ libraries: a surname with a single
		// '<' between its parts, and a personal number.
		source: "Netherlands passport specimen",
		lines: []string{
			"P<NLDDE<BRUIJN<<WILLEKE<LISELOTTE<<<<<<<<<<<",
			"SPECI20142NLD6503101F2403096999999990<<<<<84",
		},
		want: Document{
			Format: TD3, DocumentCode: "P", IssuingState: "NLD", DocumentNumber: "SPECI2014",
			Surname: "DE BRUIJN", GivenNames: "WILLEKE LISELOTTE", Nationality: "NLD",
			BirthDate: Date{"650310", 65, 3, 10}, Sex: "F", ExpiryDate: Date{"240309", 24, 3, 9},
			OptionalData1: "999999990",
			CheckDigits:   CheckDigits{DocumentNumber: '2', BirthDate: '1', ExpiryDate: '6', PersonalNumber: '8', Composite: '4'},
		},
		checks: []checkPos{
			{FieldDocumentNumber, pos{2, 10}, true},
			{FieldBirthDate, pos{2, 20}, true},
			{FieldExpiryDate, pos{2, 28}, true},
			{FieldPersonalNumber, pos{2, 43}, true},
			{FieldComposite, pos{2, 44}, false},
		},
		data: []dataRange{
			{FieldDocumentNumber, 2, 1, 9, true, false},
			{FieldBirthDate, 2, 14, 19, true, true},
			{FieldExpiryDate, 2, 22, 27, true, true},
			{FieldPersonalNumber, 2, 29, 42, true, false},
		},
		sums: []handSum{
			// S=28·7 + P=25·3 + E=14·1 + C=12·7 + I=18·3 + 2·1 + 0·7 + 1·3 + 4·1
			// = 196+75+14+84+54+2+0+3+4
			{"SPECI2014", 432, pos{2, 10}},
			// 6·7 + 5·3 + 0·1 + 3·7 + 1·3 + 0·1 = 42+15+0+21+3+0
			{"650310", 81, pos{2, 20}},
			// 2·7 + 4·3 + 0·1 + 3·7 + 0·3 + 9·1 = 14+12+0+21+0+9
			{"240309", 56, pos{2, 28}},
			// 9·7 + 9·3 + 9·1 + 9·7 + 9·3 + 9·1 + 9·7 + 9·3 + 0·1 = 3·99 − 9
			{"999999990<<<<<", 288, pos{2, 43}},
			{"SPECI20142" + "6503101" + "2403096999999990<<<<<8", 844, pos{2, 44}},
		},
	},
	{
		name: "MRV-A Utopia visa",
		// Published: ICAO Doc 9303 part 7 (MRV-A) Utopia visa specimen as
		// reproduced by MRZ libraries; nationality XXX (unspecified). No
		// composite check digit on visas.
		source: "ICAO 9303 part 7",
		lines: []string{
			"V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
			"L8988901C4XXX4009078F96121096ZE184226B<<<<<<",
		},
		want: Document{
			Format: MRVA, DocumentCode: "V", IssuingState: "UTO", DocumentNumber: "L8988901C",
			Surname: "ERIKSSON", GivenNames: "ANNA MARIA", Nationality: "XXX",
			BirthDate: Date{"400907", 40, 9, 7}, Sex: "F", ExpiryDate: Date{"961210", 96, 12, 10},
			OptionalData1: "6ZE184226B",
			CheckDigits:   CheckDigits{DocumentNumber: '4', BirthDate: '8', ExpiryDate: '9'},
		},
		checks: []checkPos{
			{FieldDocumentNumber, pos{2, 10}, false},
			{FieldBirthDate, pos{2, 20}, false},
			{FieldExpiryDate, pos{2, 28}, false},
		},
		data: []dataRange{
			{FieldDocumentNumber, 2, 1, 9, false, false},
			{FieldBirthDate, 2, 14, 19, false, true},
			{FieldExpiryDate, 2, 22, 27, false, true},
		},
		sums: []handSum{
			// L=21·7 + 8·3 + 9·1 + 8·7 + 8·3 + 9·1 + 0·7 + 1·3 + C=12·1
			// = 147+24+9+56+24+9+0+3+12
			{"L8988901C", 284, pos{2, 10}},
			// 4·7 + 0·3 + 0·1 + 9·7 + 0·3 + 7·1 = 28+0+0+63+0+7
			{"400907", 98, pos{2, 20}},
			// 9·7 + 6·3 + 1·1 + 2·7 + 1·3 + 0·1 = 63+18+1+14+3+0
			{"961210", 99, pos{2, 28}},
		},
	},
	{
		name:   "MRV-B Utopia visa",
		source: "ICAO 9303 part 7",
		// Published: ICAO Doc 9303 part 7 (MRV-B) Utopia visa specimen as
		// reproduced by MRZ libraries.
		lines: []string{
			"V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<",
			"L8988901C4XXX4009078F9612109<<<<<<<<",
		},
		want: Document{
			Format: MRVB, DocumentCode: "V", IssuingState: "UTO", DocumentNumber: "L8988901C",
			Surname: "ERIKSSON", GivenNames: "ANNA MARIA", Nationality: "XXX",
			BirthDate: Date{"400907", 40, 9, 7}, Sex: "F", ExpiryDate: Date{"961210", 96, 12, 10},
			CheckDigits: CheckDigits{DocumentNumber: '4', BirthDate: '8', ExpiryDate: '9'},
		},
		checks: []checkPos{
			{FieldDocumentNumber, pos{2, 10}, false},
			{FieldBirthDate, pos{2, 20}, false},
			{FieldExpiryDate, pos{2, 28}, false},
		},
		data: []dataRange{
			{FieldDocumentNumber, 2, 1, 9, false, false},
			{FieldBirthDate, 2, 14, 19, false, true},
			{FieldExpiryDate, 2, 22, 27, false, true},
		},
		sums: []handSum{
			{"L8988901C", 284, pos{2, 10}},
			{"400907", 98, pos{2, 20}},
			{"961210", 99, pos{2, 28}},
		},
	},
}

// charAt returns the character at a 1-based position of lines.
func charAt(lines []string, p pos) byte { return lines[p.line-1][p.pos-1] }

func TestSpecimensParse(t *testing.T) {
	for _, s := range specimens {
		t.Run(s.name, func(t *testing.T) {
			d, err := Parse(strings.Join(s.lines, "\n"))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(d.Lines, s.lines) {
				t.Errorf("Lines = %q, want %q", d.Lines, s.lines)
			}
			if d.Corrections != nil {
				t.Errorf("Corrections = %v, want none", d.Corrections)
			}
			got := *d
			got.Lines, got.Corrections = nil, nil
			if !reflect.DeepEqual(got, s.want) {
				t.Errorf("Parse =\n%+v\nwant\n%+v", got, s.want)
			}
			if errs := d.Validate(); errs != nil {
				t.Errorf("Validate = %v, want none", errs)
			}
		})
	}
}

func TestSpecimenCheckDigitsByHand(t *testing.T) {
	for _, s := range specimens {
		for _, h := range s.sums {
			digit := charAt(s.lines, h.at)
			if byte('0'+h.sum%10) != digit {
				t.Errorf("%s: hand sum %d of %q ends in %d, specimen has %q at %v", s.name, h.sum, h.data, h.sum%10, digit, h.at)
			}
			if got, ok := CheckDigit(h.data); !ok || got != rune(digit) {
				t.Errorf("%s: CheckDigit(%q) = %q, %v; want %q", s.name, h.data, got, ok, digit)
			}
		}
		// Every check digit of the specimen has a hand computation.
		for _, c := range s.checks {
			found := false
			for _, h := range s.sums {
				found = found || h.at == c.at
			}
			if !found {
				t.Errorf("%s: no hand-computed sum for the %s check digit at %v", s.name, c.field, c.at)
			}
		}
	}
}

// Every specimen is padded as Doc 9303 pads; a character after a run of
// fillers, in a name or in optional data, is not.
func TestPadded(t *testing.T) {
	for _, s := range specimens {
		d, err := Parse(strings.Join(s.lines, "\n"))
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if !d.Padded() {
			t.Errorf("%s: not padded", s.name)
		}
	}
	for _, tc := range []struct{ name, mrz string }{
		{"a letter after the name's fillers", "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<K\nL898902C36UTO7408122F1204159ZE184226B<<<<<10"},
		{"a letter after the TD1 optional data's fillers", "I<UTOD231458907<<<<<<<<<<<<<<C\n7408122F1204159UTO<<<<<<<<<<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<"},
		{"a letter after line 2's optional fillers", "I<UTOD231458907<<<<<<<<<<<<<<<\n7408122F1204159UTO<<<<<<<<K<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<"},
	} {
		d, err := Parse(tc.mrz)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if d.Padded() {
			t.Errorf("%s: taken as padded", tc.name)
		}
	}
}
