// Package docgen makes synthetic phone photos of identity documents, with
// labels, for the tests, benchmarks and accuracy evaluation of an MRZ
// reader.
//
// A document is drawn flat (Document): a TD3 passport's data page or the
// back of a TD1 ID card, with a random valid identity (RandomIdentity), a
// printed visual zone, a portrait placeholder and the MRZ in OCR-B at
// ICAO's size. Then it is photographed (Photo): perspective, rotation,
// blur, uneven and dim light, glare, sensor noise, a cluttered background,
// JPEG compression. Generate draws both from a Profile and labels each
// photo with its true MRZ and whether a careful person could read it.
//
// OCR-B comes from engines/ocrb (Debian's fonts-ocr-b, or the file
// KYCFLOW_OCRB_FONT names), not shipped with kycflow, because of its
// licence.
//
// Everything is deterministic: a seed gives the same bytes on every run.
package docgen
