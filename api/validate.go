package api

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	validation "github.com/go-ozzo/ozzo-validation/v4"
	"github.com/go-ozzo/ozzo-validation/v4/is"
	"github.com/google/uuid"
	"github.com/nyaruka/phonenumbers"

	"github.com/kycflow/kycflow/engines/eu"
)

// Validation messages follow Laravel's wording (the seed API's ecosystem):
// ":attribute" becomes the field name with underscores as spaces.

func msg(field, rest string) string {
	return "The " + strings.ReplaceAll(field, "_", " ") + " field " + rest
}

func itoa(i int) string { return strconv.Itoa(i) }

// validateField runs ozzo rules on one field unless it already has an error (a
// wrong JSON type), recording the first failing rule's message.
func validateField(fe *fieldErrors, field string, value any, rules ...validation.Rule) {
	if fe.has(field) {
		return
	}
	err := validation.Validate(value, rules...)
	if err == nil {
		return
	}
	var verr validation.Error
	if !errors.As(err, &verr) {
		// A rule that failed to run is our bug, not the caller's; say so plainly.
		fe.add(field, msg(field, "could not be validated."))
		return
	}
	fe.add(field, strings.ReplaceAll(verr.Error(), ":attribute", strings.ReplaceAll(field, "_", " ")))
}

func rule(message string) error {
	return validation.NewError("validation", message)
}

var (
	required    = validation.Required.Error("The :attribute field is required.")
	present     = validation.NotNil.Error("The :attribute field is required.") // for booleans: false is a value
	cocDigits   = validation.Match(regexp.MustCompile(`^[0-9]{6,20}$`)).Error("The :attribute field must be between 6 and 20 digits.")
	emailFormat = is.EmailFormat.Error("The :attribute field must be a valid email address.")
)

func maxLen(n int) validation.Rule {
	return validation.RuneLength(0, n).Error(fmt.Sprintf("The :attribute field must not be greater than %d characters.", n))
}

func minLen(n int) validation.Rule {
	return validation.RuneLength(n, 0).Error(fmt.Sprintf("The :attribute field must be at least %d characters.", n))
}

// euCountry accepts the alpha-3 code of an EU member state.
var euCountry = validation.By(func(v any) error {
	s := indirectString(v)
	if _, ok := eu.ByAlpha3(s); s != "" && !ok {
		return rule("The :attribute field must be the ISO 3166-1 alpha-3 code of an EU member state (e.g. NLD).")
	}
	return nil
})

// uuidString accepts the canonical 36-character form only.
var uuidString = validation.By(func(v any) error {
	s := indirectString(v)
	if s == "" {
		return nil
	}
	if _, err := uuid.Parse(s); err != nil || len(s) != 36 {
		return rule("The :attribute field must be a valid UUID.")
	}
	return nil
})

// adultBirthdate accepts a real YYYY-MM-DD date of someone 18 or older today.
func adultBirthdate(today time.Time) validation.Rule {
	return validation.By(func(v any) error {
		s := indirectString(v)
		if s == "" {
			return nil
		}
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return rule("The :attribute field must be a valid date (YYYY-MM-DD).")
		}
		if d.Year() < 1900 {
			return rule("The :attribute field must be a date after 1900-01-01.")
		}
		if d.AddDate(18, 0, 0).After(today) {
			return rule("The :attribute field must be a date at least 18 years ago: the customer must be an adult.")
		}
		return nil
	})
}

// phoneNumber accepts a number valid under libphonenumber's rules, read in
// the customer's country unless it carries its own +prefix.
func phoneNumber(region string) validation.Rule {
	return validation.By(func(v any) error {
		s := indirectString(v)
		if s == "" {
			return nil
		}
		if region == "" {
			region = "NL"
		}
		n, err := phonenumbers.Parse(s, region)
		if err != nil || !phonenumbers.IsValidNumber(n) {
			return rule("The :attribute field must be a valid phone number.")
		}
		return nil
	})
}

// normalizePhone returns the E.164 form of a number that passed phoneNumber.
func normalizePhone(s, region string) string {
	n, err := phonenumbers.Parse(s, region)
	if err != nil {
		return s
	}
	return phonenumbers.Format(n, phonenumbers.E164)
}

func indirectString(v any) string {
	iv, _ := validation.Indirect(v)
	s, _ := iv.(string)
	return s
}
