"""Integer expressions over dynamic dimensions, fitted to the values seen in several traces.

A traced graph holds numbers: `x.view(b * t, c)` records view(x, [32, 64]) at b=4, t=8.
Traced again at other sizes, the same place holds other numbers; fit() finds the
simplest expression that gives every one of them:

    constant                     64
    a*m + b                      batch, seq - 1, 2*seq + 1, 3*batch*seq (m: a monomial)
    a*m1 + b*m2 + c              batch + seq, batch*seq + seq
    (a*m + b) // d               seq // 2, (seq + 1) // 2 (a conv's output length)

Candidates are tried in that order, each checked exactly on every traced point; the
first that fits wins. Nothing fits -> None (the caller reports the place).
"""
import itertools
from fractions import Fraction

# Monomials up to this degree in a*m + b (b*h*t*t: attention scores flattened).
_MAX_DEGREE = 4
# Two-term sums and floor divisions use monomials up to this degree.
_MAX_DEGREE_COMBINED = 2
_MAX_DIVISOR = 256
_MAX_DIVIDEND_COEFFICIENT = 8


class SymExpr:
    """(constant + sum coefficient * monomial) // divisor; monomials are symbol tuples."""

    def __init__(self, terms=(), constant=0, divisor=1):
        self.terms = [(m, c) for m, c in terms if c != 0]
        self.constant = constant
        self.divisor = divisor

    @property
    def is_constant(self):
        return not self.terms

    def evaluate(self, assignment):
        total = self.constant
        for monomial, coefficient in self.terms:
            product = coefficient
            for name in monomial:
                product *= assignment[name]
            total += product
        return total // self.divisor

    def text(self):
        parts = []
        for monomial, coefficient in self.terms:
            body = "*".join(monomial)
            if coefficient == 1:
                parts.append(("+", body))
            elif coefficient == -1:
                parts.append(("-", body))
            else:
                parts.append(("-" if coefficient < 0 else "+", "%d*%s" % (abs(coefficient), body)))
        if self.constant or not parts:
            parts.append(("-" if self.constant < 0 else "+", str(abs(self.constant))))
        sign, first = parts[0]
        text = ("-" if sign == "-" else "") + first
        for sign, body in parts[1:]:
            text += " %s %s" % (sign, body)
        if self.divisor != 1:
            text = ("(%s)" % text if len(parts) > 1 or text.startswith("-") else text)
            text += " // %d" % self.divisor
        return text

    def fill(self, symint, hint):
        """Write this expression into an artifact SymInt (a plain value if constant)."""
        if self.is_constant and self.divisor == 1:
            symint.value = self.constant
            return
        symint.expr = self.text()
        symint.hint = hint
        for monomial, coefficient in self.terms:
            term = symint.symbolic.terms.add(coefficient=coefficient)
            term.symbols.extend(monomial)
        symint.symbolic.constant = self.constant
        symint.symbolic.divisor = self.divisor


class Fitter:
    """Fits values to the traced points; one Fitter per export (it memoizes)."""

    def __init__(self, symbols, points):
        """symbols: names in declaration order; points: one {name: size} per trace."""
        self._points = points
        self._cache = {}
        monomials = []
        for degree in range(1, _MAX_DEGREE + 1):
            monomials.extend(itertools.combinations_with_replacement(symbols, degree))
        # A monomial constant over the points says nothing the constant term does not.
        self._monomials = [m for m in monomials
                           if len({self._monomial_at(m, p) for p in points}) > 1]

    @staticmethod
    def _monomial_at(monomial, point):
        product = 1
        for name in monomial:
            product *= point[name]
        return product

    def fit(self, values):
        """values[i] seen at points[i] -> the simplest SymExpr giving all, or None."""
        key = tuple(values)
        if key not in self._cache:
            self._cache[key] = self._fit(list(values))
        return self._cache[key]

    def _fit(self, values):
        if len(set(values)) == 1:
            return SymExpr(constant=values[0])
        for m in self._monomials:
            found = self._linear([m], values)
            if found is not None:
                return found
        combined = [m for m in self._monomials if len(m) <= _MAX_DEGREE_COMBINED]
        for m1, m2 in itertools.combinations(combined, 2):
            # a*s + b*s*s + c would interpolate any three sizes of one symbol.
            if len(set(m1) | set(m2)) == 1:
                continue
            found = self._linear([m1, m2], values)
            if found is not None:
                return found
        for divisor in range(2, _MAX_DIVISOR + 1):
            for m in combined:
                for coefficient in range(1, _MAX_DIVIDEND_COEFFICIENT + 1):
                    found = self._floor_division(m, coefficient, divisor, values)
                    if found is not None:
                        return found
        return None

    def _linear(self, monomials, values):
        """Integer coefficients of sum c_i*m_i + c0 through all points, or None."""
        rows = [[Fraction(self._monomial_at(m, p)) for m in monomials] + [Fraction(1)]
                for p in self._points]
        solution = _solve(rows, [Fraction(v) for v in values])
        if solution is None or any(c.denominator != 1 for c in solution):
            return None
        *coefficients, constant = [int(c) for c in solution]
        if 0 in coefficients:
            return None  # a simpler candidate covers it
        expr = SymExpr(zip(monomials, coefficients), constant)
        return expr if self._fits(expr, values) else None

    def _floor_division(self, monomial, coefficient, divisor, values):
        """(coefficient*m + b) // divisor through all points: b from the intersection of
        the ranges each point allows; the b nearest 0 when several fit."""
        low, high = None, None
        for point, value in zip(self._points, values):
            base = coefficient * self._monomial_at(monomial, point)
            lo, hi = divisor * value - base, divisor * value + divisor - 1 - base
            low = lo if low is None else max(low, lo)
            high = hi if high is None else min(high, hi)
            if low > high:
                return None
        constant = 0 if low <= 0 <= high else (low if low > 0 else high)
        expr = SymExpr([(monomial, coefficient)], constant, divisor)
        return expr if self._fits(expr, values) else None

    def _fits(self, expr, values):
        return all(expr.evaluate(p) == v for p, v in zip(self._points, values))


def _solve(rows, rhs):
    """One exact solution of the (over-determined, consistent) system rows * x = rhs,
    or None if it is inconsistent or under-determined."""
    n = len(rows[0])
    matrix = [row[:] + [b] for row, b in zip(rows, rhs)]
    pivot_row = 0
    pivots = []
    for col in range(n):
        found = next((r for r in range(pivot_row, len(matrix)) if matrix[r][col] != 0), None)
        if found is None:
            return None  # this unknown is not determined by the points
        matrix[pivot_row], matrix[found] = matrix[found], matrix[pivot_row]
        pivot = matrix[pivot_row][col]
        matrix[pivot_row] = [x / pivot for x in matrix[pivot_row]]
        for r in range(len(matrix)):
            if r != pivot_row and matrix[r][col] != 0:
                factor = matrix[r][col]
                matrix[r] = [x - factor * y for x, y in zip(matrix[r], matrix[pivot_row])]
        pivots.append(pivot_row)
        pivot_row += 1
    if any(row[n] != 0 for row in matrix[pivot_row:]):
        return None  # inconsistent: the points disagree with this form
    return [matrix[r][n] for r in pivots]
