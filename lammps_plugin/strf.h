/* -*- c++ -*- printf-style formatting into a std::string, for the error
 * messages of the streamcl LAMMPS styles (LAMMPS's bundled fmt is not
 * usable from outside its build). */
#ifndef STREAMCL_STRF_H
#define STREAMCL_STRF_H

#include <cstdarg>
#include <cstdio>
#include <string>

inline std::string strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
inline std::string strf(const char *fmt, ...)
{
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

#endif
