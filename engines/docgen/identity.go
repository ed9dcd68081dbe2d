package docgen

import (
	"image"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/kycflow/kycflow/engines/mrz"
)

// Reference is the "today" of generated documents, 1 June 2026: expiry
// dates are drawn around it, not around the clock, so that a seed always
// gives the same documents. Judge Identity.Expired against it.
func Reference() time.Time { return time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC) }

// Identity is a random document holder and document.
type Identity struct {
	Format mrz.Format
	Fields mrz.Fields
	MRZ    string // the MRZ lines joined by "\n", as mrz.Compose writes them

	// The dates of Fields in full, for the visual zone.
	Birth, Issue, Expiry time.Time
	// Expired says whether Expiry is before Reference() (about 1 in 10).
	Expired bool

	// Tampered names the field the visual zone prints otherwise than the
	// MRZ ("surname" or "birth_date"; "" for none), and PrintedSurname and
	// PrintedBirth what it prints instead.
	Tampered       string
	PrintedSurname string
	PrintedBirth   time.Time

	// Portrait is the holder's photo the page prints in grey; nil: a
	// silhouette.
	Portrait image.Image
}

// The fields a tampered visual zone changes.
const (
	TamperedSurname = "surname"
	TamperedBirth   = "birth_date"
)

// tamper changes id's printed surname or date of birth (one of the two,
// drawn), as a forger who edits the page but not its MRZ would: another
// surname from the list, or a birth date a few days, months or years off.
func tamper(id Identity, r *rand.Rand) Identity {
	if r.IntN(2) == 0 {
		id.Tampered = TamperedSurname
		for id.PrintedSurname == "" || id.PrintedSurname == id.Fields.Surname {
			id.PrintedSurname = pick(r, surnames)
		}
		return id
	}
	id.Tampered = TamperedBirth
	switch r.IntN(3) {
	case 0:
		id.PrintedBirth = id.Birth.AddDate(0, 0, 1+r.IntN(27))
	case 1:
		id.PrintedBirth = id.Birth.AddDate(0, 1+r.IntN(11), 0)
	default:
		id.PrintedBirth = id.Birth.AddDate(-1-r.IntN(9), 0, 0) // older: a minor made an adult
	}
	return id
}

// Surnames in the MRZ's alphabet, as the MRZ spells them (transliterated:
// MUELLER for Müller); some long, some with spaces.
var surnames = []string{
	"DE BRUIJN", "JANSEN", "DE VRIES", "VAN DEN BERG", "BAKKER", "VISSER", "SMIT", "MEIJER",
	"DE JONG", "MULDER", "VAN DER WOUDE", "VAN LEEUWEN", "HENDRIKS", "DEKKER", "BOS", "VERMEULEN",
	"VAN DER MEULEN KOOPMANS", "SCHOUTEN", "KUIPERS", "TER HORST",
	"MUELLER", "SCHMIDT", "SCHNEIDER", "FISCHER", "WEBER", "SCHWARZENEGGER HOFMANN", "ZIMMERMANN",
	"DUBOIS", "LEFEBVRE", "MOREAU", "DE LA FONTAINE", "GARCIA LOPEZ", "FERNANDEZ DE CORDOBA",
	"ROSSI", "ESPOSITO", "KOWALSKI", "NOWAK", "WOJCIECHOWSKA", "SZCZEPANSKI", "OBRIEN", "MURPHY",
	"SMITH", "JONES", "PAPADOPOULOS", "ANDERSSON", "NIELSEN", "YILMAZ", "EL AMRANI", "BENNANI",
	"NGUYEN", "TRAN", "KHAN", "PATEL", "OKAFOR", "MENSAH", "DA SILVA SANTOS", "WANG", "KIM",
	"ABDULRAHMAN AL HASHIMI", "UTOPIAN",
}

var givenNames = []string{
	"WILLEKE", "LISELOTTE", "JAN", "PIETER", "SANNE", "DAAN", "EMMA", "SEM", "JULIA", "LUCAS",
	"MAARTEN", "ANNEMARIE", "HENDRIKA", "JOHANNES", "CORNELIS", "FLEUR", "THIJS", "NOUR",
	"ANNA", "MARIA", "SOPHIE", "KLAUS", "JUERGEN", "FRANCOIS", "CHLOE", "LUCIA", "MATEO",
	"GIUSEPPE", "AGNIESZKA", "KRZYSZTOF", "SIOBHAN", "OLIVER", "INGRID", "MEHMET", "AYSE",
	"FATIMA", "MOHAMMED", "YOUSSEF", "MINH", "AISHA", "CHIDI", "PRIYA", "WEI", "JI WOO",
	"MARIA DEL CARMEN", "ALEXANDROS", "BARTHOLOMEUS", "MAXIMILIAN",
}

// states are issuing states and nationalities: ISO 3166 codes and Doc
// 9303's own (D for Germany, UTO for the specimen state Utopia).
var states = []string{"NLD", "NLD", "NLD", "D", "BEL", "FRA", "UTO", "GBR", "ESP", "ITA", "POL", "SWE", "TUR", "MAR", "USA"}

// RandomIdentity draws a holder and a document of format (mrz.TD3 or
// mrz.TD1) with a valid MRZ. It panics on any other format.
func RandomIdentity(r *rand.Rand, format mrz.Format) Identity {
	if format != mrz.TD3 && format != mrz.TD1 {
		panic("docgen: RandomIdentity draws TD3 and TD1 documents, not " + string(format))
	}
	state := pick(r, states)
	nationality := state
	if r.IntN(10) == 0 { // now and then a foreigner's residence card or a specimen
		nationality = pick(r, states)
	}
	given := pick(r, givenNames)
	for n := r.IntN(3); n > 0; n-- {
		if g := pick(r, givenNames); !strings.Contains(given, g) {
			given += " " + g
		}
	}
	birth := dayIn(r, time.Date(1940, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2007, 12, 31, 0, 0, 0, 0, time.UTC))
	// Ten-year documents; about one in ten expired before Reference().
	var expiry time.Time
	if r.IntN(10) == 0 {
		expiry = dayIn(r, Reference().AddDate(-6, 0, 0), Reference().AddDate(0, 0, -1))
	} else {
		expiry = dayIn(r, Reference().AddDate(0, 0, 30), Reference().AddDate(10, 0, -2)) // issued before Reference
	}
	issue := expiry.AddDate(-10, 0, 1)
	code := "P"
	if format == mrz.TD1 {
		code = "I"
		if state == "D" || state == "FRA" || state == "BEL" {
			code = "ID"
		}
	}
	f := mrz.Fields{
		Format:         format,
		DocumentCode:   code,
		IssuingState:   state,
		Surname:        pick(r, surnames),
		GivenNames:     given,
		DocumentNumber: documentNumber(r),
		Nationality:    nationality,
		BirthDate:      birth.Format("060102"),
		Sex:            pick(r, []string{"M", "M", "M", "M", "M", "M", "M", "M", "F", "F", "F", "F", "F", "F", "F", "F", "X"}),
		ExpiryDate:     expiry.Format("060102"),
	}
	if r.IntN(2) == 0 {
		f.OptionalData = bsn(r)
	}
	text, err := mrz.Compose(f)
	if err != nil { // the fields above are in the MRZ alphabet by construction
		panic("docgen: " + err.Error())
	}
	return Identity{Format: format, Fields: f, MRZ: text, Birth: birth, Issue: issue, Expiry: expiry, Expired: expiry.Before(Reference())}
}

func pick[T any](r *rand.Rand, list []T) T { return list[r.IntN(len(list))] }

// dayIn draws a day in [from, to].
func dayIn(r *rand.Rand, from, to time.Time) time.Time {
	days := int(to.Sub(from).Hours()/24) + 1
	return from.AddDate(0, 0, r.IntN(days))
}

// documentNumber draws 9 characters: mostly Dutch style (two letters, six
// letters or digits, a digit; never the letter O, as in Dutch numbers), the
// specimen numbers SPECI20xx, or anything in [A-Z0-9].
func documentNumber(r *rand.Rand) string {
	const letters = "ABCDEFGHIJKLMNPQRSTUVWXYZ" // no O
	const digits = "0123456789"
	var b strings.Builder
	switch n := r.IntN(10); {
	case n < 5:
		for i := 0; i < 9; i++ {
			switch {
			case i < 2:
				b.WriteByte(letters[r.IntN(len(letters))])
			case i < 8:
				b.WriteByte((letters + digits)[r.IntN(len(letters)+len(digits))])
			default:
				b.WriteByte(digits[r.IntN(len(digits))])
			}
		}
	case n < 6:
		b.WriteString("SPECI20")
		b.WriteByte(digits[1+r.IntN(2)])
		b.WriteByte(digits[r.IntN(10)])
	default:
		const all = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		for i := 0; i < 9; i++ {
			b.WriteByte(all[r.IntN(len(all))])
		}
	}
	return b.String()
}

// bsn draws a 9-digit number that passes the Dutch BSN eleven test
// (9·d1 + 8·d2 + … + 2·d8 − d9 divisible by 11), like a Dutch passport's
// personal number.
func bsn(r *rand.Rand) string {
	for {
		var d [9]int
		sum := 0
		d[0] = 1 + r.IntN(9)
		for i := 0; i < 8; i++ {
			if i > 0 {
				d[i] = r.IntN(10)
			}
			sum += (9 - i) * d[i]
		}
		d[8] = sum % 11
		if d[8] == 10 {
			continue
		}
		b := make([]byte, 9)
		for i, v := range d {
			b[i] = byte('0' + v)
		}
		return string(b)
	}
}
