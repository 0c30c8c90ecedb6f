#pragma once
/// \file unison/unison.hpp
/// Everything in Unison.
#include <unison/core.hpp>
#include <unison/elementwise.hpp>
#include <unison/math.hpp>
#include <unison/transform.hpp>
#include <unison/backends/device_info.hpp>
