// Package codeshape checks, in its tests, the shape the project's code
// keeps: no function over a hundred lines outside its data literals, and
// no package over about 4,000 lines of code without its doc comment saying
// why (a paragraph starting "Size:"). It holds no code.
package codeshape
