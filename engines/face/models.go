package face

// The models, from the npm package @vladmandic/face-api 1.7.15 (MIT), which
// ships them as TensorFlow.js weights; docs/FACE.md says where each was
// trained and under what licence. The Makefile's face-models target
// fetches the package, checks its SHA-256 and copies these files; each
// file's own SHA-256 is checked again when it is loaded.
const (
	detectorModel   = "tiny_face_detector_model"
	landmarksModel  = "face_landmark_68_model"
	recogniserModel = "face_recognition_model"
)

type modelFiles struct{ manifest, bin string }

var pinned = map[string]modelFiles{
	detectorModel: {
		manifest: "5d1af4849ac48d5b985f4a9b16010c512353ddd6fcc63d50fd0bc9e9e64296e5",
		bin:      "b7503ce7df31039b1c43316a9b865cab6a70dd748cc602d3fa28b551503c3871",
	},
	landmarksModel: {
		manifest: "ca4886639f86e99b39fed0c155f81b63317225773bd9616716e887b0153389c9",
		bin:      "4611ef65c87d836d03d684b30eec4d195d8b219fa1dd58fc58945831c6b9299b",
	},
	recogniserModel: {
		manifest: "cbaffa501b0b9275a12b63357a6843e7e30c054e1c9151e1a5f879b26e32986b",
		bin:      "b413e420d6840b2775fba32008db6f3cddb07d485967fb42cfcf379c16a8c589",
	},
}
