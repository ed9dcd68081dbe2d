package sandbox

import "net/http"

// The seed: the KvK numbers of KvK's published test environment
// (developers.kvk.nl, "Test environment" and "Swagger - Basisprofiel": the
// number list with legal forms and behaviours) with the names and places its
// fictitious data answers, as far as public material shows them. Where it
// does not (house numbers, dates, SBI codes of most numbers), the data is
// invented but keeps the number's documented behaviour; each entry says which.
// Invented addresses use made-up streets and ZZ postcodes, and invented
// entries carry no RSIN, so none can point at a real building or entity.

// seedFailures are the test numbers KvK lists as "Foutmelding" (error
// message). KvK does not document which error they give; these choices are
// the sandbox's: one final, one temporary.
var seedFailures = map[string]failure{
	"90002903": {http.StatusBadRequest, Fout{"IPD1998", "Algemene fout in de invoerparameters."}},
	"90004973": {http.StatusInternalServerError, Fout{"IPD9999", "Algemene technische fout."}},
}

func reg(start, end string) *MaterieleRegistratie {
	return &MaterieleRegistratie{DatumAanvang: start, DatumEinde: end}
}

func names(list ...string) []Handelsnaam {
	out := make([]Handelsnaam, len(list))
	for i, n := range list {
		out[i] = Handelsnaam{Naam: n, Volgorde: i}
	}
	return out
}

func sbi(code, text string) []SBIActiviteit {
	return []SBIActiviteit{{code, text, "Ja"}}
}

// postbus is a correspondence address at a PO box, as KvK writes one.
func postbus(nr int, postcode, plaats, full string) Adres {
	return Adres{Type: "correspondentieadres", IndAfgeschermd: "Nee", VolledigAdres: full,
		Straatnaam: "Postbus", Postbusnummer: nr, Postcode: postcode, Plaats: plaats, Land: "Nederland"}
}

func bezoek(straat string, nr int, toevoeging, postcode, plaats, full string) Adres {
	return Adres{Type: "bezoekadres", IndAfgeschermd: "Nee", VolledigAdres: full, Straatnaam: straat,
		Huisnummer: nr, HuisnummerToevoeging: toevoeging, Postcode: postcode, Plaats: plaats, Land: "Nederland"}
}

func hoofdvestiging(kvk, nummer, naam, start string, adressen ...Adres) *Vestiging {
	return &Vestiging{Vestigingsnummer: nummer, KvKNummer: kvk, FormeleRegistratiedatum: start,
		MaterieleRegistratie: reg(start, ""), EersteHandelsnaam: naam, IndHoofdvestiging: "Ja",
		IndCommercieleVestiging: "Ja", TotaalWerkzamePersonen: 1, Adressen: adressen}
}

func seedProfiles() []Basisprofiel {
	return []Basisprofiel{
		// BV, active. Name, trade name, SBI, RSIN, legal form, dates and both
		// addresses (padded volledigAdres included) as KvK's test
		// environment answers; the second trade name is its nevenvestiging's
		// name as Zoeken shows it.
		{
			KvKNummer: "68750110", IndNonMailing: "Ja", Naam: "Test BV Donald", StatutaireNaam: "Test BV Donald",
			FormeleRegistratiedatum: "20170519", MaterieleRegistratie: reg("20170519", ""), TotaalWerkzamePersonen: 1,
			Handelsnamen:    names("Test BV Donald", "Test BV Donald Nevenvestiging"),
			SBIActiviteiten: sbi("01241", "Teelt van appels en peren"),
			Embedded: &Embedded{
				Hoofdvestiging: &Vestiging{
					Vestigingsnummer: "000037178598", KvKNummer: "68750110", FormeleRegistratiedatum: "20200210",
					MaterieleRegistratie: reg("20140210", ""), EersteHandelsnaam: "Test BV Donald",
					IndHoofdvestiging: "Ja", IndCommercieleVestiging: "Ja", TotaalWerkzamePersonen: 1,
					Adressen: []Adres{
						postbus(200, "1000AE", "Rommeldam", "Postbus 200                                 1000AE Rommeldam"),
						bezoek("Hizzaarderlaan", 3, "A", "8823SJ", "Lollum", "Hizzaarderlaan 3 A                                 8823SJ Lollum"),
					},
				},
				Eigenaar: &Eigenaar{RSIN: "857587973", Rechtsvorm: "Besloten Vennootschap",
					UitgebreideRechtsvorm: "Besloten Vennootschap met gewone structuur"},
			},
		},
		// Eenmanszaak: no statutaire naam, owner is a person (no RSIN). Name,
		// trade names, branch number and address as public material shows
		// them; dates and SBI invented.
		{
			KvKNummer: "69599084", IndNonMailing: "Nee", Naam: "Test EMZ Dagobert",
			FormeleRegistratiedatum: "20170918", MaterieleRegistratie: reg("20170918", ""), TotaalWerkzamePersonen: 1,
			Handelsnamen:    names("Test EMZ Dagobert", "Tweede handelsnaam 1MZ"),
			SBIActiviteiten: sbi("78201", "Uitzendbureaus"),
			Embedded: &Embedded{
				Hoofdvestiging: hoofdvestiging("69599084", "000038509504", "Test EMZ Dagobert", "20170918",
					bezoek("Abebe Bikilalaan", 17, "", "1034WL", "Amsterdam", "Abebe Bikilalaan 17 1034WL Amsterdam")),
				Eigenaar: &Eigenaar{Rechtsvorm: "Eenmanszaak", UitgebreideRechtsvorm: "Eenmanszaak"},
			},
		},
		// NV with a main branch; addresses invented.
		{
			KvKNummer: "68727720", Naam: "Test NV Katrien", StatutaireNaam: "Test NV Katrien",
			FormeleRegistratiedatum: "20170413", MaterieleRegistratie: reg("20170413", ""),
			Handelsnamen: names("Test NV Katrien"), SBIActiviteiten: sbi("6420", "Financiële holdings"),
			Embedded: &Embedded{
				Hoofdvestiging: hoofdvestiging("68727720", "000037143557", "Test NV Katrien", "20170413",
					postbus(9901, "3500ZZ", "Utrecht", "Postbus 9901 3500ZZ Utrecht"),
					bezoek("Katrienkade", 2, "", "3511ZZ", "Utrecht", "Katrienkade 2 3511ZZ Utrecht")),
				Eigenaar: &Eigenaar{Rechtsvorm: "Naamloze Vennootschap",
					UitgebreideRechtsvorm: "Naamloze Vennootschap met gewone structuur"},
			},
		},
		// NV without a main branch: KvK puts the addresses in eigenaar.
		// Addresses and dates invented.
		{
			KvKNummer: "90004760", Naam: "Local Funzoom", StatutaireNaam: "Local Funzoom",
			FormeleRegistratiedatum: "20190115", MaterieleRegistratie: reg("20190115", ""),
			Handelsnamen: names("Local Funzoom"),
			Embedded: &Embedded{Eigenaar: &Eigenaar{
				Rechtsvorm: "Naamloze Vennootschap", UitgebreideRechtsvorm: "Naamloze Vennootschap",
				Adressen: []Adres{
					postbus(9945, "9700ZZ", "Groningen", "Postbus 9945 9700ZZ Groningen"),
					bezoek("Funzoomstraat", 1, "", "9712ZZ", "Groningen", "Funzoomstraat 1 9712ZZ Groningen"),
				},
			}},
		},
		// BV with a shielded ("afgeschermd") visiting address: KvK lists it
		// as "BV (Afgeschermd adres)". Only the postal address is public;
		// what KvK sends for the shielded one is not documented, so it comes
		// as type + indicator only. PO box invented.
		{
			KvKNummer: "90001354", Naam: "Grand Contex BV", StatutaireNaam: "Grand Contex BV",
			FormeleRegistratiedatum: "20180601", MaterieleRegistratie: reg("20180601", ""),
			Handelsnamen: names("Grand Contex BV"),
			Embedded: &Embedded{
				Hoofdvestiging: hoofdvestiging("90001354", "990000541921", "Grand Contex BV", "20180601",
					Adres{Type: "bezoekadres", IndAfgeschermd: "Ja"},
					postbus(9913, "3000ZZ", "Rotterdam", "Postbus 9913 3000ZZ Rotterdam")),
				Eigenaar: &Eigenaar{Rechtsvorm: "Besloten Vennootschap",
					UitgebreideRechtsvorm: "Besloten Vennootschap met gewone structuur"},
			},
		},
		// Stichting; addresses in eigenaar. Street and place as KvK's
		// documentation example shows; number and postcode invented.
		{
			KvKNummer: "69599068", Naam: "Test Stichting Bolderbast", StatutaireNaam: "Test Stichting Bolderbast",
			FormeleRegistratiedatum: "20171013", MaterieleRegistratie: reg("20171013", ""),
			Handelsnamen: names("Test Stichting Bolderbast"),
			Embedded: &Embedded{Eigenaar: &Eigenaar{
				Rechtsvorm: "Stichting", UitgebreideRechtsvorm: "Stichting",
				Adressen: []Adres{bezoek("Oosterwal", 99, "", "7241ZZ", "Lochem", "Oosterwal 99 7241ZZ Lochem")},
			}},
		},
		// Stichting; all data invented.
		{
			KvKNummer: "90000102", Naam: "Stichting Testbeheer Noord", StatutaireNaam: "Stichting Testbeheer Noord",
			FormeleRegistratiedatum: "20181120", MaterieleRegistratie: reg("20181120", ""),
			Handelsnamen: names("Stichting Testbeheer Noord"),
			Embedded: &Embedded{
				Hoofdvestiging: hoofdvestiging("90000102", "990000102001", "Stichting Testbeheer Noord", "20181120",
					bezoek("Beheerderslaan", 12, "", "9711ZZ", "Groningen", "Beheerderslaan 12 9711ZZ Groningen")),
				Eigenaar: &Eigenaar{Rechtsvorm: "Stichting", UitgebreideRechtsvorm: "Stichting"},
			},
		},
		// VoF; name and place as public material shows; the rest invented.
		{
			KvKNummer: "69599076", Naam: "Test VOF Guus",
			FormeleRegistratiedatum: "20170918", MaterieleRegistratie: reg("20170918", ""),
			Handelsnamen: names("Test VOF Guus"),
			Embedded: &Embedded{
				Hoofdvestiging: hoofdvestiging("69599076", "000038509474", "Test VOF Guus", "20170918",
					bezoek("Guuspad", 7, "", "1315ZZ", "Almere", "Guuspad 7 1315ZZ Almere")),
				Eigenaar: &Eigenaar{Rechtsvorm: "Vennootschap onder firma",
					UitgebreideRechtsvorm: "Vennootschap onder firma"},
			},
		},
		// Coöperatie, listed by KvK's older test page; data invented.
		{
			KvKNummer: "55344526", Naam: "Test Coöperatie Akkerland U.A.", StatutaireNaam: "Test Coöperatie Akkerland U.A.",
			FormeleRegistratiedatum: "20120702", MaterieleRegistratie: reg("20120702", ""),
			Handelsnamen: names("Test Coöperatie Akkerland U.A."),
			Embedded: &Embedded{
				Hoofdvestiging: hoofdvestiging("55344526", "000037178605", "Test Coöperatie Akkerland U.A.", "20120702",
					bezoek("Akkerlandweg", 5, "", "6701ZZ", "Wageningen", "Akkerlandweg 5 6701ZZ Wageningen")),
				Eigenaar: &Eigenaar{Rechtsvorm: "Coöperatie",
					UitgebreideRechtsvorm: "Coöperatie met uitgesloten aansprakelijkheid"},
			},
		},
		// Coöperatie, inactive: KvK lists it as "Coöperatie (inactief)". The
		// registration has ended; names and dates invented.
		{
			KvKNummer: "96354429", Naam: "Test Coöperatie De Slapende Molen U.A.",
			StatutaireNaam:          "Test Coöperatie De Slapende Molen U.A.",
			FormeleRegistratiedatum: "20190301", MaterieleRegistratie: reg("20190301", "20230630"),
			Handelsnamen: names("Test Coöperatie De Slapende Molen U.A."),
			Embedded: &Embedded{
				Hoofdvestiging: &Vestiging{
					Vestigingsnummer: "990001987781", KvKNummer: "96354429", FormeleRegistratiedatum: "20190301",
					MaterieleRegistratie: reg("20190301", "20230630"), EersteHandelsnaam: "Test Coöperatie De Slapende Molen U.A.",
					IndHoofdvestiging: "Ja", IndCommercieleVestiging: "Ja",
					Adressen: []Adres{bezoek("Slapende Molenweg", 4, "", "8091ZZ", "Wezep", "Slapende Molenweg 4 8091ZZ Wezep")},
				},
				Eigenaar: &Eigenaar{Rechtsvorm: "Coöperatie",
					UitgebreideRechtsvorm: "Coöperatie met uitgesloten aansprakelijkheid"},
			},
		},
		// Overige privaatrechtelijke rechtspersoon; name, street and place as
		// KvK's Zoeken test answer shows; the rest invented.
		{
			KvKNummer: "55505201", Naam: "Company Newtex", StatutaireNaam: "Company Newtex",
			FormeleRegistratiedatum: "20120815", MaterieleRegistratie: reg("20120815", ""),
			Handelsnamen: names("Company Newtex"),
			Embedded: &Embedded{Eigenaar: &Eigenaar{
				Rechtsvorm:            "Overige privaatrechtelijke rechtspersoon",
				UitgebreideRechtsvorm: "Overige privaatrechtelijke rechtspersoon",
				Adressen:              []Adres{bezoek("Japiksestraat", 999, "", "5641ZZ", "Eindhoven", "Japiksestraat 999 5641ZZ Eindhoven")},
			}},
		},
	}
}
