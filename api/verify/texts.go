package verify

import (
	"fmt"
	"time"

	"github.com/kycflow/kycflow/check"
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
	// The photo page.
	PhotoHow, PhotoPassport, PhotoCard, PhotoTips              string
	PhotoLabel, PhotoSend, PhotoCamera, PhotoTake, PhotoCancel string
	PhotoFrontLabel, PhotoFrontHelp                            string
	PhotoAwaiting, PhotoReading, PhotoReadingBody, PhotoDone   string
	NotReadTitle, NotReadBody                                  string
	RetakeTitle, AttemptOf, QRHint, TypeInstead, TypedOff      string
	CameraDenied, HintDark, HintSmall, HintBlurred, HintOK     string
	UploadOff, UploadMultipart, UploadTooLarge, UploadBroken   string
	UploadTooMany, UploadEmpty, UploadFormat, UploadPixels     string
	UploadDamaged, UploadMissing, UploadAttemptsUsed           string
	// The selfie that follows the document, where the tenant asks for one.
	SelfieAwaiting, SelfieReading, SelfieNoChallenge, SelfieWrongNonce string
	SelfieTooMany                                                      string
	// The selfie's page: consent first, then the steps, the live view.
	SelfieTitle, SelfieIntro, SelfieWhyTitle, SelfieWhat               string
	SelfieKept, SelfieKeptNone, SelfieConsent, SelfieConsentNeeded     string
	SelfieStepsTitle, SelfieStraight, SelfieFrameLabel, SelfieStart    string
	SelfieTake, SelfieSend, SelfieCameraDenied, SelfieRetakeTitle      string
	SelfieAttemptOf, SelfieNotUsedTitle, SelfieNotUsedBody, SelfieDone string
	SelfieSending, SelfieManual, Days, Hours                           string
	LookOneFrame, LookOff, LookOK                                      string
	// selfieRetakes phrases each selfie retake reason (check.Selfie…).
	selfieRetakes map[string]string
	// selfieSteps phrase each challenge step (selfie.Step) as an instruction.
	selfieSteps map[string]string
	// lookHints phrase the live view's hints (selfie.Look).
	lookHints map[string]string
	// retakes phrases each retake reason (check.Retake…).
	retakes                                  map[string]string
	ChooseBank, ContinueToBank, IDINDoneBody string
	BanksUnavailable, ReturnMismatch         string
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
	PhotoHow:         "Take a photo of your document, or choose one you took. kycflow reads the code printed at the bottom: the two or three lines of capital letters, digits and < signs.",
	PhotoPassport:    "Passport: the page with your photo.", PhotoCard: "Identity card: the back, with the three lines of code.",
	PhotoTips:       "Lay the document flat in good light, fill most of the photo with it, and avoid reflections on the code.",
	PhotoFrontLabel: "Identity card? Add its front, with your photo",
	PhotoFrontHelp:  "A selfie follows, compared with the photo on your document: on most identity cards it is on the front.",
	PhotoLabel:      "Photo of your document", PhotoSend: "Send photo", PhotoCamera: "Use the camera", PhotoTake: "Take photo", PhotoCancel: "Cancel",
	PhotoAwaiting: "Waiting for a photo of the document.", PhotoReading: "Reading your photo…", PhotoReadingBody: "This takes a few seconds; the page updates by itself.",
	PhotoDone:           "The photo was read; the result goes to the requester.",
	SelfieAwaiting:      "The document was read. Now a selfie: look straight at the camera, then follow the steps shown.",
	SelfieReading:       "Checking your selfie…",
	SelfieNoChallenge:   "No selfie is expected now: the document is not read yet, or the selfie is being checked.",
	SelfieWrongNonce:    "These frames answer another challenge: ask the status for the current one.",
	SelfieTooMany:       "Send at most 8 frames.",
	SelfieTitle:         "Take a selfie",
	SelfieIntro:         "Your document was read. %s also asks for a selfie, to make sure that the person holding the document is you.",
	SelfieWhyTitle:      "What happens with your selfie",
	SelfieWhat:          "Your face in the selfie is compared with the photo in your document, and a few frames taken while you follow the steps below show that a live person is in front of the camera. The comparison is made only for this check, for %s; the measurements of your face are not kept.",
	SelfieKept:          "The selfie and its frames are kept, encrypted, for %s after the check ends, and then erased.",
	SelfieKeptNone:      "The selfie and its frames are erased as soon as they are checked.",
	SelfieConsent:       "I agree that %s compares my selfie with the photo in my document.",
	SelfieConsentNeeded: "Tick the box to agree first: without your consent no selfie is taken.",
	SelfieStepsTitle:    "What to do",
	SelfieStraight:      "Look straight at the camera.",
	SelfieFrameLabel:    "Photo %d: %s",
	SelfieStart:         "Start the camera",
	SelfieTake:          "Take this frame",
	SelfieSend:          "Send selfie",
	SelfieCameraDenied:  "The camera is not available; take a photo for each step below instead.",
	SelfieRetakeTitle:   "Please take the selfie again",
	SelfieAttemptOf:     "Selfie %d of at most %d.",
	SelfieNotUsedTitle:  "Your selfie could not be used",
	SelfieNotUsedBody:   "None of the selfies could be checked, and this link takes no more. %s has been told that your identity was not verified, and will tell you how to go on.",
	SelfieDone:          "Done",
	SelfieSending:       "Sending your selfie…",
	SelfieManual:        "Follow each step, and take the frame with the button when you are ready.",
	Days:                "%d days", Hours: "%d hours",
	LookOneFrame: "Send one frame at a time.",
	LookOff:      "Guidance is not available right now: follow each step and take the frame with the button.",
	LookOK:       "Good: hold still.",
	selfieSteps: map[string]string{
		"turn_left": "Turn your head to your left.", "turn_right": "Turn your head to your right.",
		"look_up": "Look up, keeping your face in the frame.", "blink": "Close your eyes for two seconds, then open them.",
	},
	lookHints: map[string]string{
		"face_not_found": "We cannot see your face: look at the camera.", "face_too_small": "Come closer: your face should fill the oval.",
		"face_too_dark": "Too dark: face a window or a lamp.", "face_off_centre": "Put your face in the middle of the frame.",
		"several_faces": "Only you should be in the frame.",
	},
	selfieRetakes: map[string]string{
		check.SelfieNoFace:   "Your face was not found in every frame: keep your whole face in the frame, and turn only as far as asked.",
		check.SelfieTooSmall: "Come closer: your face should fill about a third of the frame.",
		check.SelfieTooDark:  "Too dark: face a window or a lamp.",
		check.SelfieTooFew:   "Take a frame looking straight at the camera, then one for each step.",
	},
	NotReadTitle: "Your document could not be read",
	NotReadBody:  "None of the photos could be read with certainty, and this link takes no more. %s has been told that your document was not verified, and will tell you how to go on.",
	RetakeTitle:  "Please take the photo again", AttemptOf: "Photo %d of at most %d.",
	QRHint:      "On a computer? Scan this code with your phone to continue there.",
	TypeInstead: "Type the code instead", TypedOff: "Please send a photo of your document; typing the code is not accepted here.",
	CameraDenied: "The camera is not available; choose a photo instead.",
	HintDark:     "Too dark: find more light.", HintSmall: "Move closer: the document should fill the frame.", HintBlurred: "Hold still: the picture is blurred.", HintOK: "Good: take the photo.",
	UploadOff:          "Photo uploads are not available at the moment. Please try again later.",
	UploadMultipart:    "Send the photo as a multipart/form-data upload with an image field.",
	UploadTooLarge:     "The photo is larger than 15 MB. Take it again or choose a smaller one.",
	UploadBroken:       "The upload was cut off. Please send the photo again.",
	UploadTooMany:      "Send at most two images at once.",
	UploadEmpty:        "The file is empty. Choose the photo again.",
	UploadFormat:       "This is not a JPEG or PNG photo. Take a photo, or choose a JPEG or PNG file.",
	UploadPixels:       "The image is too large to read: over 40 megapixels, or too many for its colour depth. Choose a smaller photo.",
	UploadDamaged:      "The photo is damaged and cannot be opened. Take it again.",
	UploadMissing:      "Choose a photo of your document first.",
	UploadAttemptsUsed: "Every photo attempt of this link is used.",
	retakes: map[string]string{
		check.RetakeNotFound:   "The code at the bottom of the document is not in the photo. Photograph the page with your photo (passport) or the back (identity card), whole.",
		check.RetakeTooSmall:   "The document is too far away. Hold the camera closer, so the document fills most of the photo.",
		check.RetakeTooDark:    "The photo is too dark. Find more light.",
		check.RetakeBlurred:    "The photo is blurred. Hold still, let the camera focus, and take it again.",
		check.RetakeGlare:      "The code at the bottom is covered by a reflection. Tilt the document a little, or move away from the lamp.",
		check.RetakeUnreadable: "The code at the bottom could not be read with certainty. Take the photo again, straight on and sharp.",
	},
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
	PhotoHow:         "Maak een foto van uw document, of kies een foto die u al maakte. kycflow leest de code onderaan: de twee of drie regels met hoofdletters, cijfers en <-tekens.",
	PhotoPassport:    "Paspoort: de pagina met uw foto.", PhotoCard: "Identiteitskaart: de achterkant, met de drie regels code.",
	PhotoTips:       "Leg het document plat in goed licht, laat het het grootste deel van de foto vullen en voorkom weerspiegelingen op de code.",
	PhotoFrontLabel: "Identiteitskaart? Voeg de voorkant toe, met uw foto",
	PhotoFrontHelp:  "Hierna volgt een selfie, die wordt vergeleken met de foto op uw document: op de meeste identiteitskaarten staat die op de voorkant.",
	PhotoLabel:      "Foto van uw document", PhotoSend: "Foto versturen", PhotoCamera: "Camera gebruiken", PhotoTake: "Foto maken", PhotoCancel: "Annuleren",
	PhotoAwaiting: "Wacht op een foto van het document.", PhotoReading: "Uw foto wordt gelezen…", PhotoReadingBody: "Dit duurt enkele seconden; de pagina ververst vanzelf.",
	PhotoDone:           "De foto is gelezen; de uitslag gaat naar de aanvrager.",
	SelfieAwaiting:      "Het document is gelezen. Nu een selfie: kijk recht in de camera en volg dan de getoonde stappen.",
	SelfieReading:       "Uw selfie wordt gecontroleerd…",
	SelfieNoChallenge:   "Er wordt nu geen selfie verwacht: het document is nog niet gelezen, of de selfie wordt gecontroleerd.",
	SelfieWrongNonce:    "Deze beelden horen bij een andere opdracht: vraag de status voor de huidige.",
	SelfieTooMany:       "Stuur hoogstens 8 beelden.",
	SelfieTitle:         "Maak een selfie",
	SelfieIntro:         "Uw document is gelezen. %s vraagt ook om een selfie, om zeker te weten dat u degene bent die het document heeft.",
	SelfieWhyTitle:      "Wat er met uw selfie gebeurt",
	SelfieWhat:          "Uw gezicht op de selfie wordt vergeleken met de foto in uw document, en een paar beelden terwijl u de stappen hieronder volgt laten zien dat er een levend persoon voor de camera staat. De vergelijking wordt alleen voor deze controle gemaakt, voor %s; de metingen van uw gezicht worden niet bewaard.",
	SelfieKept:          "De selfie en de beelden worden versleuteld bewaard tot %s na het einde van de controle, en dan gewist.",
	SelfieKeptNone:      "De selfie en de beelden worden gewist zodra ze zijn gecontroleerd.",
	SelfieConsent:       "Ik ga ermee akkoord dat %s mijn selfie vergelijkt met de foto in mijn document.",
	SelfieConsentNeeded: "Vink eerst het vakje aan: zonder uw toestemming wordt geen selfie gemaakt.",
	SelfieStepsTitle:    "Wat u doet",
	SelfieStraight:      "Kijk recht in de camera.",
	SelfieFrameLabel:    "Foto %d: %s",
	SelfieStart:         "Camera starten",
	SelfieTake:          "Dit beeld nemen",
	SelfieSend:          "Selfie versturen",
	SelfieCameraDenied:  "De camera is niet beschikbaar; maak hieronder een foto voor elke stap.",
	SelfieRetakeTitle:   "Maak de selfie opnieuw",
	SelfieAttemptOf:     "Selfie %d van maximaal %d.",
	SelfieNotUsedTitle:  "Uw selfie kon niet worden gebruikt",
	SelfieNotUsedBody:   "Geen van de selfies kon worden gecontroleerd, en deze link neemt er geen meer aan. %s weet dat uw identiteit niet is bevestigd, en laat u weten hoe het verder gaat.",
	SelfieDone:          "Klaar",
	SelfieSending:       "Uw selfie wordt verstuurd…",
	SelfieManual:        "Volg elke stap en neem het beeld met de knop wanneer u klaar bent.",
	Days:                "%d dagen", Hours: "%d uur",
	LookOneFrame: "Stuur één beeld tegelijk.",
	LookOff:      "Aanwijzingen zijn nu niet beschikbaar: volg elke stap en neem het beeld met de knop.",
	LookOK:       "Goed zo: stilhouden.",
	selfieSteps: map[string]string{
		"turn_left": "Draai uw hoofd naar links.", "turn_right": "Draai uw hoofd naar rechts.",
		"look_up": "Kijk omhoog, met uw gezicht in beeld.", "blink": "Sluit uw ogen twee seconden en open ze dan weer.",
	},
	lookHints: map[string]string{
		"face_not_found": "We zien uw gezicht niet: kijk naar de camera.", "face_too_small": "Kom dichterbij: uw gezicht moet het ovaal vullen.",
		"face_too_dark": "Te donker: ga voor een raam of een lamp zitten.", "face_off_centre": "Zet uw gezicht in het midden van het beeld.",
		"several_faces": "Alleen u hoort in beeld te zijn.",
	},
	selfieRetakes: map[string]string{
		check.SelfieNoFace:   "Uw gezicht is niet in elk beeld gevonden: houd uw hele gezicht in beeld en draai niet verder dan gevraagd.",
		check.SelfieTooSmall: "Kom dichterbij: uw gezicht moet ongeveer een derde van het beeld vullen.",
		check.SelfieTooDark:  "Te donker: ga voor een raam of een lamp zitten.",
		check.SelfieTooFew:   "Maak een beeld terwijl u recht in de camera kijkt, en dan een per stap.",
	},
	NotReadTitle: "Uw document kon niet worden gelezen",
	NotReadBody:  "Geen van de foto's kon met zekerheid worden gelezen, en deze link neemt er geen meer aan. %s weet dat uw document niet is bevestigd en laat u weten hoe het verder gaat.",
	RetakeTitle:  "Maak de foto opnieuw", AttemptOf: "Foto %d van maximaal %d.",
	QRHint:      "Op een computer? Scan deze code met uw telefoon om daar verder te gaan.",
	TypeInstead: "De code liever overtypen", TypedOff: "Stuur een foto van uw document; de code overtypen wordt hier niet aangenomen.",
	CameraDenied: "De camera is niet beschikbaar; kies een foto.",
	HintDark:     "Te donker: zoek meer licht.", HintSmall: "Dichterbij: het document moet het beeld vullen.", HintBlurred: "Stilhouden: het beeld is onscherp.", HintOK: "Goed zo: maak de foto.",
	UploadOff:          "Foto's versturen is op dit moment niet mogelijk. Probeer het later opnieuw.",
	UploadMultipart:    "Stuur de foto als multipart/form-data met een veld image.",
	UploadTooLarge:     "De foto is groter dan 15 MB. Maak hem opnieuw of kies een kleinere.",
	UploadBroken:       "Het versturen is afgebroken. Stuur de foto opnieuw.",
	UploadTooMany:      "Stuur hoogstens twee afbeeldingen tegelijk.",
	UploadEmpty:        "Het bestand is leeg. Kies de foto opnieuw.",
	UploadFormat:       "Dit is geen JPEG- of PNG-foto. Maak een foto, of kies een JPEG- of PNG-bestand.",
	UploadPixels:       "De afbeelding is te groot om te lezen: meer dan 40 megapixels, of te veel voor haar kleurdiepte. Kies een kleinere foto.",
	UploadDamaged:      "De foto is beschadigd en kan niet worden geopend. Maak hem opnieuw.",
	UploadMissing:      "Kies eerst een foto van uw document.",
	UploadAttemptsUsed: "Alle pogingen van deze link zijn gebruikt.",
	retakes: map[string]string{
		check.RetakeNotFound:   "De code onderaan het document staat niet op de foto. Fotografeer de pagina met uw foto (paspoort) of de achterkant (identiteitskaart), helemaal.",
		check.RetakeTooSmall:   "Het document is te ver weg. Houd de camera dichterbij, zodat het document het grootste deel van de foto vult.",
		check.RetakeTooDark:    "De foto is te donker. Zoek meer licht.",
		check.RetakeBlurred:    "De foto is onscherp. Houd stil, laat de camera scherpstellen en maak hem opnieuw.",
		check.RetakeGlare:      "De code onderaan wordt bedekt door een weerspiegeling. Kantel het document een beetje, of ga weg van de lamp.",
		check.RetakeUnreadable: "De code onderaan kon niet met zekerheid worden gelezen. Maak de foto opnieuw, recht van voren en scherp.",
	},
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

// duration says a retention in days, or hours under two days.
func (t texts) duration(d time.Duration) string {
	if d >= 48*time.Hour {
		return fmt.Sprintf(t.Days, int(d.Hours()/24))
	}
	return fmt.Sprintf(t.Hours, max(1, int(d.Hours())))
}

// retake phrases a retake's reason for a person.
func (t texts) retake(reason *string) string {
	if reason != nil {
		if m, ok := t.retakes[*reason]; ok {
			return m
		}
	}
	return t.retakes[check.RetakeUnreadable]
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
