"""Integer expressions over dynamic dimensions, fitted to the values seen in several traces.

A traced graph holds numbers: `x.view(b * t, c)` records view(x, [32, 64]) at b=4, t=8.
Traced again at other sizes, the same place holds other numbers; fit() finds the
simplest expression that gives every one of them:

    constant                     64
    a*m + b                      batch, seq - 1, 2*seq + 1, 3*batch*seq (m: a monomial)
    a*m1 + b*m2 + c              batch + seq, batch*seq + seq
    (a*m + b) // d               seq // 2, (seq + 1) // 2 (a conv's output length)
    a1*s1 + ... + an*sn + c      u0 + u1 + u2 + u3 (a cat of one selection per class)

Candidates are tried in that order, each checked exactly on every traced point; the
first that fits wins. Nothing fits -> None (the caller reports the place, or tries
fit_clamp: min(expression, constant), which the caller makes a symbol of its own).
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

    @classmethod
    def from_message(cls, message):
        """The expression an artifact SymExpr holds."""
        return cls([(tuple(t.symbols), t.coefficient) for t in message.terms],
                   message.constant, message.divisor or 1)

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
        self.fill_expr(symint.symbolic)

    def fill_expr(self, message):
        """Write this expression into an artifact SymExpr."""
        for monomial, coefficient in self.terms:
            term = message.terms.add(coefficient=coefficient)
            term.symbols.extend(monomial)
        message.constant = self.constant
        message.divisor = self.divisor


class Fitter:
    """Fits values to the traced points; one Fitter per export (it memoizes)."""

    def __init__(self, symbols, points):
        """symbols: names in declaration order; points: one {name: size} per trace."""
        self._points = points
        self._symbols = list(symbols)
        self._cache = {}
        self._set_monomials()

    def _set_monomials(self):
        monomials = []
        for degree in range(1, _MAX_DEGREE + 1):
            monomials.extend(itertools.combinations_with_replacement(self._symbols, degree))
        # A monomial constant over the points says nothing the constant term does not.
        self._monomials = [m for m in monomials
                           if len({self._monomial_at(m, p) for p in self._points}) > 1]

    def add_symbol(self, name, values):
        """A symbol found while fitting (a clamp), with its value at each point."""
        for point, value in zip(self._points, values):
            point[name] = value
        self._symbols.append(name)
        self._set_monomials()
        self._cache = {key: expr for key, expr in self._cache.items() if expr is not None}

    def fit_clamp(self, values):
        """(expression, c) with min(expression, c) giving every value, where the
        expression fits the points below the largest value c and reaches c at the
        others; None if there is no such pair. One point below is taken for a symbol
        itself (keep[:3] of a count traced at 2 below the clamp)."""
        cap = max(values)
        below = [i for i, v in enumerate(values) if v < cap]
        if not below or len(below) == len(values):
            return None
        if len(below) == 1:  # too few to fit: a symbol itself, if one gives the value
            candidates = [SymExpr([((s,), 1)]) for s in self._symbols
                          if self._points[below[0]][s] == values[below[0]]]
        else:
            sub = Fitter(self._symbols, [self._points[i] for i in below])
            candidates = [sub.fit([values[i] for i in below])]
        for expr in candidates:
            if expr is not None and not expr.is_constant and all(
                    min(expr.evaluate(p), cap) == v for p, v in zip(self._points, values)):
                return expr, cap
        return None

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
        return self._sum_of_symbols(values)

    def _sum_of_symbols(self, values):
        """sum a_i*s_i + c over every symbol that varies, zero coefficients dropped."""
        singles = [m for m in self._monomials if len(m) == 1]
        if len(singles) <= 2:
            return None  # the one- and two-term forms covered these
        rows = [[Fraction(self._monomial_at(m, p)) for m in singles] + [Fraction(1)]
                for p in self._points]
        solution = _solve(rows, [Fraction(v) for v in values])
        if solution is None or any(c.denominator != 1 for c in solution):
            return None
        *coefficients, constant = [int(c) for c in solution]
        expr = SymExpr(zip(singles, coefficients), constant)
        return expr if self._fits(expr, values) else None

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
