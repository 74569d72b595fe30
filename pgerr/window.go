package pgerr

// SQLSTATEs of window functions and frames.
const (
	InvalidArgumentForNtile         = "22014"
	InvalidArgumentForNthValue      = "22016"
	InvalidPrecedingOrFollowingSize = "22013"
	NullValueNotAllowed             = "22004"
)
