package verify

import (
	"fmt"

	"github.com/kycflow/kycflow/engines/mrz"
)

// texts are a page's words in one language.
type texts struct {
	Language, Footer                                  string
	IDScanTitle, IDScanIntro, IDScanHow, ExampleLabel string
	MRZLabel, MRZHelp, Submit, ErrorsTitle            string
	DoneTitle, DoneBody                               string
	UsedTitle, UsedBody                               string
	ExpiredTitle, ExpiredBody                         string
	RevokedTitle, RevokedBody                         string
	UnknownTitle, UnknownBody                         string
	UnavailableTitle, UnavailableBody                 string
	ForeignTitle, ForeignBody                         string
	BusyTitle, BusyBody                               string
	Unreadable                                        string
	IDINTitle, IDINIntro, IDINHow, BankLabel          string
	ChooseBank, ContinueToBank, IDINDoneBody          string
	BanksUnavailable, ReturnMismatch                  string
	// fields names MRZ fields in sentences.
	fields map[mrz.Field]string
	// kinds phrase a problem with a field (%s: the field's name).
	checkDigit, composite, invalidChar, invalidDate, invalidValue string
}

var english = texts{
	Language: "Language", Footer: "This page was sent to you to verify your identity. If you did not expect it, you can close it.",
	IDScanTitle: "Verify your identity document", IDScanIntro: "%s asks you to confirm your identity with your passport or identity card.",
	IDScanHow:    "Type the machine-readable zone (MRZ): the two or three lines of capital letters, digits and < signs at the bottom of your passport's photo page or on the back of your identity card. Type every < sign.",
	ExampleLabel: "Example of a passport MRZ",
	MRZLabel:     "Machine-readable zone", MRZHelp: "One line of the document per line. Spaces are ignored.",
	Submit: "Verify", ErrorsTitle: "Please check what you typed",
	DoneTitle: "Thank you", DoneBody: "Your document details were received and are being checked. %s will be informed; you can close this page.",
	UsedTitle: "This link has been used", UsedBody: "Each link works once, and this one was already used. If you need to verify again, ask %s for a new link.",
	ExpiredTitle: "This link has expired", ExpiredBody: "Ask %s for a new link.",
	RevokedTitle: "This link is no longer valid", RevokedBody: "A newer link may have been sent to you; use that one, or ask %s for a new link.",
	UnknownTitle: "This link is not valid", UnknownBody: "Check that you opened the whole link from your message. Links stop working when they are replaced or the request is withdrawn.",
	UnavailableTitle: "Not available", UnavailableBody: "Verification with your bank (iDIN) is not available at the moment. Please contact %s.",
	ForeignTitle: "Sent from elsewhere", ForeignBody: "This form was not sent from its own page, so it was not accepted. Open the link from your message and fill in the form there.",
	BusyTitle: "Too many attempts", BusyBody: "Please wait a minute before you try again.",
	IDINTitle: "Confirm your identity with your bank", IDINIntro: "%s asks you to confirm your identity with iDIN, through your own bank.",
	IDINHow:   "Choose your bank. You log in there as usual and agree to share your name, date of birth, gender and address; then you come back here.",
	BankLabel: "Your bank", ChooseBank: "Choose your bank…", ContinueToBank: "Continue to your bank",
	IDINDoneBody:     "Your bank's confirmation is being checked. %s will be informed; you can close this page.",
	BanksUnavailable: "The list of banks cannot be loaded right now. Please try again in a minute.",
	ReturnMismatch:   "This return from the bank does not belong to this link. Open the link from your message again.",
	Unreadable:       "This is not a machine-readable zone: type the 2 lines of 44 characters of a passport, 2 lines of 36, or the 3 lines of 30 of an identity card.",
	fields: map[mrz.Field]string{
		mrz.FieldDocumentCode: "document code", mrz.FieldIssuingState: "issuing country", mrz.FieldName: "name",
		mrz.FieldDocumentNumber: "document number", mrz.FieldNationality: "nationality", mrz.FieldBirthDate: "date of birth",
		mrz.FieldSex: "sex", mrz.FieldExpiryDate: "expiry date", mrz.FieldPersonalNumber: "personal number",
		mrz.FieldOptionalData: "optional data", mrz.FieldComposite: "final check digit", mrz.FieldLayout: "layout",
	},
	checkDigit:   "The check digit of the %s does not match (line %d, position %d): please check the %s and its check digit.",
	composite:    "The final check digit does not match (line %d, position %d): please check the whole line.",
	invalidChar:  "The %s contains a character that does not belong there (line %d, position %d).",
	invalidDate:  "The %s is not a valid date (line %d, position %d).",
	invalidValue: "The %s is not valid (line %d, position %d).",
}

var dutch = texts{
	Language: "Taal", Footer: "Deze pagina is u gestuurd om uw identiteit te bevestigen. Verwachtte u dit niet, dan kunt u haar sluiten.",
	IDScanTitle: "Bevestig uw identiteitsbewijs", IDScanIntro: "%s vraagt u uw identiteit te bevestigen met uw paspoort of identiteitskaart.",
	IDScanHow:    "Typ de machine-leesbare zone (MRZ) over: de twee of drie regels met hoofdletters, cijfers en <-tekens onderaan de fotopagina van uw paspoort of op de achterkant van uw identiteitskaart. Typ elk <-teken mee.",
	ExampleLabel: "Voorbeeld van de MRZ van een paspoort",
	MRZLabel:     "Machine-leesbare zone", MRZHelp: "Eén regel van het document per regel. Spaties tellen niet mee.",
	Submit: "Bevestigen", ErrorsTitle: "Controleer wat u hebt getypt",
	DoneTitle: "Dank u wel", DoneBody: "Uw documentgegevens zijn ontvangen en worden gecontroleerd. %s wordt op de hoogte gebracht; u kunt deze pagina sluiten.",
	UsedTitle: "Deze link is al gebruikt", UsedBody: "Elke link werkt één keer en deze is al gebruikt. Moet u opnieuw bevestigen, vraag %s dan om een nieuwe link.",
	ExpiredTitle: "Deze link is verlopen", ExpiredBody: "Vraag %s om een nieuwe link.",
	RevokedTitle: "Deze link is niet meer geldig", RevokedBody: "Misschien is u een nieuwere link gestuurd; gebruik die, of vraag %s om een nieuwe link.",
	UnknownTitle: "Deze link is niet geldig", UnknownBody: "Controleer of u de hele link uit uw bericht hebt geopend. Links werken niet meer als ze vervangen zijn of het verzoek is ingetrokken.",
	UnavailableTitle: "Niet beschikbaar", UnavailableBody: "Bevestigen via uw bank (iDIN) is op dit moment niet beschikbaar. Neem contact op met %s.",
	ForeignTitle: "Van elders verstuurd", ForeignBody: "Dit formulier is niet vanaf de eigen pagina verstuurd en daarom niet aangenomen. Open de link uit uw bericht en vul het formulier daar in.",
	BusyTitle: "Te veel pogingen", BusyBody: "Wacht een minuut voordat u het opnieuw probeert.",
	IDINTitle: "Bevestig uw identiteit met uw bank", IDINIntro: "%s vraagt u uw identiteit te bevestigen met iDIN, via uw eigen bank.",
	IDINHow:   "Kies uw bank. U logt daar in zoals altijd en geeft toestemming om uw naam, geboortedatum, geslacht en adres te delen; daarna komt u hier terug.",
	BankLabel: "Uw bank", ChooseBank: "Kies uw bank…", ContinueToBank: "Verder naar uw bank",
	IDINDoneBody:     "De bevestiging van uw bank wordt gecontroleerd. %s wordt op de hoogte gebracht; u kunt deze pagina sluiten.",
	BanksUnavailable: "De lijst met banken kan nu niet worden geladen. Probeer het over een minuut opnieuw.",
	ReturnMismatch:   "Deze terugkeer van de bank hoort niet bij deze link. Open de link uit uw bericht opnieuw.",
	Unreadable:       "Dit is geen machine-leesbare zone: typ de 2 regels van 44 tekens van een paspoort, 2 regels van 36, of de 3 regels van 30 van een identiteitskaart.",
	fields: map[mrz.Field]string{
		mrz.FieldDocumentCode: "documentcode", mrz.FieldIssuingState: "land van afgifte", mrz.FieldName: "naam",
		mrz.FieldDocumentNumber: "documentnummer", mrz.FieldNationality: "nationaliteit", mrz.FieldBirthDate: "geboortedatum",
		mrz.FieldSex: "geslacht", mrz.FieldExpiryDate: "vervaldatum", mrz.FieldPersonalNumber: "persoonsnummer",
		mrz.FieldOptionalData: "optionele gegevens", mrz.FieldComposite: "laatste controlecijfer", mrz.FieldLayout: "indeling",
	},
	checkDigit:   "Het controlecijfer van het veld %s klopt niet (regel %d, positie %d): controleer het veld %s en het controlecijfer.",
	composite:    "Het laatste controlecijfer klopt niet (regel %d, positie %d): controleer de hele regel.",
	invalidChar:  "Het veld %s bevat een teken dat er niet thuishoort (regel %d, positie %d).",
	invalidDate:  "Het veld %s is geen geldige datum (regel %d, positie %d).",
	invalidValue: "Het veld %s is niet geldig (regel %d, positie %d).",
}

// problem phrases one MRZ problem for a person.
func (t texts) problem(e mrz.CheckError) string {
	name := t.fields[e.Field]
	if name == "" {
		name = string(e.Field)
	}
	switch e.Kind {
	case mrz.KindCheckDigit:
		if e.Field == mrz.FieldComposite {
			return fmt.Sprintf(t.composite, e.Line, e.Pos)
		}
		return fmt.Sprintf(t.checkDigit, name, e.Line, e.Pos, name)
	case mrz.KindInvalidCharacter:
		return fmt.Sprintf(t.invalidChar, name, e.Line, e.Pos)
	case mrz.KindInvalidDate:
		return fmt.Sprintf(t.invalidDate, name, e.Line, e.Pos)
	}
	return fmt.Sprintf(t.invalidValue, name, e.Line, e.Pos)
}
