package console

import (
	"fmt"
	"net/http"
	"time"

	"github.com/kycflow/kycflow/api/lang"
)

// text is the console's words in one language.
type text struct {
	Lang, Other, OtherName, Footer                    string
	SignInTitle, SignInIntro, Email, Password, Code   string
	CodeHelp, SignIn, SignInFailed, Locked            string
	InviteTitle, InviteIntro, NewPassword, Confirm    string
	PasswordHelp, AppStep, SecretLabel, Activate      string
	PasswordRule, PasswordsDiffer, CodeWrong          string
	InviteGoneTitle, InviteGoneBody                   string
	HomeTitle, SignedInAs, SignOut, SignOutEverywhere string
	ComingNext                                        string
	InboxTitle, InboxIntro, InboxEmpty, InboxNext     string
	ColWaiting, ColLeft, ColCustomer, ColHits         string
	ColDecided, ColPending, ColScore, Overdue         string
	Reviews, Days, Hours, Minutes                     string
	ErrorsTitle                                       string
	OffTitle, OffBody, UnknownTitle, UnknownBody      string
	ForeignTitle, ForeignBody, SignedOutTitle         string
	SignedOutBody, ErrorTitle, ErrorBody              string
	BusyTitle, BusyBody                               string
}

var texts = map[string]text{
	"en": {
		Lang: "en", Other: "nl", OtherName: "Nederlands", Footer: "kycflow console",
		SignInTitle: "Sign in", SignInIntro: "Sign in with your email address, your password and a code from your authenticator app.",
		Email: "Email address", Password: "Password", Code: "Code from your authenticator app", CodeHelp: "Six digits; a new one every 30 seconds.",
		SignIn: "Sign in", SignInFailed: "Not signed in: the email address, the password or the code is not right.",
		Locked:      "Not signed in: after too many wrong attempts from here, this address cannot sign in from here for 15 minutes.",
		InviteTitle: "Set up your account", InviteIntro: "You are invited to the console as %s (%s). Choose a password and set up a second factor.",
		NewPassword: "Password", Confirm: "Password again", PasswordHelp: "12 to 128 characters. A sentence is easier to remember than symbols.",
		AppStep:     "Scan this code with an authenticator app (Google Authenticator, Microsoft Authenticator, 1Password, …), or type the key below, then enter the six digits it shows.",
		SecretLabel: "Key", Activate: "Activate my account",
		PasswordRule: "The password must have 12 to 128 characters.", PasswordsDiffer: "The two passwords are not the same.",
		CodeWrong:       "The code is not right: check that the app shows this account, and the time on your phone.",
		InviteGoneTitle: "This invitation is not valid", InviteGoneBody: "It was used, replaced by a newer one, or has expired (invitations last 72 hours). Ask an administrator for a new one.",
		HomeTitle: "Console", SignedInAs: "Signed in as %s, %s.", SignOut: "Sign out", SignOutEverywhere: "Sign out everywhere",
		ComingNext: "Deciding reviews, cases and support pages come here next; until then decide through the API or the kycflow command.",
		InboxTitle: "Review inbox", InboxIntro: "Sanctions and PEP hits awaiting a decision, oldest first. The review window is %s: a check not decided by then expires.",
		InboxEmpty: "Nothing awaits review.", InboxNext: "Older reviews first: the next ones",
		ColWaiting: "Waiting", ColLeft: "Window left", ColCustomer: "Customer", ColHits: "Alerting hits",
		ColDecided: "Decided", ColPending: "Awaiting approval", ColScore: "Top score", Overdue: "(due soon)",
		Reviews: "Review inbox", Days: "%d d", Hours: "%d h", Minutes: "%d min",
		ErrorsTitle: "Please correct:",
		OffTitle:    "The console is off", OffBody: "The operator has not configured it (STAFF_KEY).",
		UnknownTitle: "Unknown address", UnknownBody: "No tenant is reached at this address.",
		ForeignTitle: "Refused", ForeignBody: "This form did not come from this console's own page. Open the page again and send it from there.",
		SignedOutTitle: "Signed out", SignedOutBody: "Your session has ended. Sign in again.",
		ErrorTitle: "Something went wrong", ErrorBody: "Please try again in a moment.",
		BusyTitle: "Busy", BusyBody: "Too many people are signing in at once. Please try again in a few seconds.",
	},
	"nl": {
		Lang: "nl", Other: "en", OtherName: "English", Footer: "kycflow-console",
		SignInTitle: "Inloggen", SignInIntro: "Log in met uw e-mailadres, uw wachtwoord en een code uit uw authenticator-app.",
		Email: "E-mailadres", Password: "Wachtwoord", Code: "Code uit uw authenticator-app", CodeHelp: "Zes cijfers; elke 30 seconden een nieuwe.",
		SignIn: "Inloggen", SignInFailed: "Niet ingelogd: het e-mailadres, het wachtwoord of de code klopt niet.",
		Locked:      "Niet ingelogd: na te veel mislukte pogingen vanaf hier kan dit adres hier 15 minuten niet inloggen.",
		InviteTitle: "Uw account instellen", InviteIntro: "U bent uitgenodigd voor de console als %s (%s). Kies een wachtwoord en stel een tweede factor in.",
		NewPassword: "Wachtwoord", Confirm: "Wachtwoord nogmaals", PasswordHelp: "12 tot 128 tekens. Een zin onthoudt u makkelijker dan symbolen.",
		AppStep:     "Scan deze code met een authenticator-app (Google Authenticator, Microsoft Authenticator, 1Password, …) of typ de sleutel hieronder, en vul dan de zes cijfers in die de app toont.",
		SecretLabel: "Sleutel", Activate: "Mijn account activeren",
		PasswordRule: "Het wachtwoord moet 12 tot 128 tekens hebben.", PasswordsDiffer: "De twee wachtwoorden zijn niet gelijk.",
		CodeWrong:       "De code klopt niet: controleer of de app dit account toont, en de tijd op uw telefoon.",
		InviteGoneTitle: "Deze uitnodiging is niet geldig", InviteGoneBody: "Ze is gebruikt, vervangen door een nieuwere of verlopen (uitnodigingen gelden 72 uur). Vraag een beheerder om een nieuwe.",
		HomeTitle: "Console", SignedInAs: "Ingelogd als %s, %s.", SignOut: "Uitloggen", SignOutEverywhere: "Overal uitloggen",
		ComingNext: "Beslissen, dossiers en supportpagina's komen hier; beslis tot dan via de API of de kycflow-opdracht.",
		InboxTitle: "Te beoordelen", InboxIntro: "Treffers op sanctie- en PEP-lijsten die op een beslissing wachten, oudste eerst. De beoordelingstermijn is %s: een controle die dan niet beslist is, verloopt.",
		InboxEmpty: "Er wacht niets op beoordeling.", InboxNext: "Oudste eerst: de volgende",
		ColWaiting: "Wacht", ColLeft: "Termijn over", ColCustomer: "Klant", ColHits: "Treffers",
		ColDecided: "Beslist", ColPending: "Wacht op goedkeuring", ColScore: "Hoogste score", Overdue: "(bijna verlopen)",
		Reviews: "Te beoordelen", Days: "%d d", Hours: "%d u", Minutes: "%d min",
		ErrorsTitle: "Corrigeer:",
		OffTitle:    "De console staat uit", OffBody: "De beheerder heeft haar niet ingesteld (STAFF_KEY).",
		UnknownTitle: "Onbekend adres", UnknownBody: "Op dit adres is geen klant bereikbaar.",
		ForeignTitle: "Geweigerd", ForeignBody: "Dit formulier kwam niet van de eigen pagina van deze console. Open de pagina opnieuw en verstuur het daarvandaan.",
		SignedOutTitle: "Uitgelogd", SignedOutBody: "Uw sessie is beëindigd. Log opnieuw in.",
		ErrorTitle: "Er ging iets mis", ErrorBody: "Probeer het zo nog eens.",
		BusyTitle: "Druk", BusyBody: "Er loggen te veel mensen tegelijk in. Probeer het over een paar seconden nog eens.",
	},
}

// language is the request's (api/lang), else English.
func language(r *http.Request) string {
	if l := lang.Of(r); l != "" {
		return l
	}
	return "en"
}

// duration says d in whole days, else hours, else minutes (never below
// zero).
func (t text) duration(d time.Duration) string {
	switch d = max(d, 0); {
	case d >= 48*time.Hour:
		return fmt.Sprintf(t.Days, int(d.Hours()/24))
	case d >= 2*time.Hour:
		return fmt.Sprintf(t.Hours, int(d.Hours()))
	}
	return fmt.Sprintf(t.Minutes, int(d.Minutes()))
}
