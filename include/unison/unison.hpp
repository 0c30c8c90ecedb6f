#pragma once
/// \file unison/unison.hpp
/// Everything in Unison.
#include <unison/backends/device_info.hpp>
#include <unison/convolve.hpp>
#include <unison/core.hpp>
#include <unison/diffusion.hpp>
#include <unison/elementwise.hpp>
#include <unison/examples.hpp>
#include <unison/field.hpp>
#include <unison/histogram.hpp>
#include <unison/math.hpp>
#include <unison/matmul.hpp>
#include <unison/npy.hpp>
#include <unison/random.hpp>
#include <unison/rowwise.hpp>
#include <unison/transform.hpp>
