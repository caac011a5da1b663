// The translation unit that builds the shared precompiled header
// (BatonPrecompiledHeaders.cmake); it has no code of its own.
