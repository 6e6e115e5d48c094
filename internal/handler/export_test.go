package handler

// ResultFile is resultFile, for the external tests.
var ResultFile = resultFile
