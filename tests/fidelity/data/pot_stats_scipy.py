# ProgramOfThought: answer statistics questions about two teaching methods with numpy and scipy.stats.
# %% the data
import numpy as np
from scipy import stats
method_a = np.array([78, 85, 69, 91, 74, 88, 80, 72, 95, 83, 77, 86])
method_b = np.array([71, 75, 68, 80, 66, 79, 73, 70, 84, 72, 69, 77])
print(len(method_a), len(method_b))
print(f"means: {method_a.mean():.3f} vs {method_b.mean():.3f}")
# %% sample standard deviations
sd_a = method_a.std(ddof=1)
sd_b = method_b.std(ddof=1)
print(round(sd_a, 4), round(sd_b, 4))
print(f"pooled: {np.sqrt((sd_a**2 + sd_b**2) / 2):.4f}")
# %% a two-sample t-test
t, p = stats.ttest_ind(method_a, method_b)
print(f"t = {t:.4f}, p = {p:.5f}")
print("significant at 5%:", p < 0.05)
# %% the t statistic by hand
se = np.sqrt(sd_a**2 / len(method_a) + sd_b**2 / len(method_b))
t_manual = (method_a.mean() - method_b.mean()) / se
df_ = len(method_a) + len(method_b) - 2
p_manual = 2 * stats.t.sf(abs(t_manual), df_)
print(round(float(t_manual), 4), round(float(p_manual), 5))
# %% correlation between study hours and score
hours = np.array([2, 3, 5, 1, 4, 6, 3.5, 2.5, 7, 4.5, 3, 5.5])
r, p_r = stats.pearsonr(hours, method_a)
print(f"r = {r:.4f} (p = {p_r:.4g})")
# %% correlation with numpy only
r_np = np.corrcoef(hours, method_a)[0, 1]
print(round(r_np, 6))
np.cov(hours, method_a).round(3)
# %% a regression line
fit = stats.linregress(hours, method_a)
print(f"score = {fit.slope:.3f} * hours + {fit.intercept:.3f}, r^2 = {fit.rvalue**2:.4f}")
# %% the same fit with polyfit
slope, intercept = np.polyfit(hours, method_a, 1)
pred = np.polyval([slope, intercept], [4, 8])
print(np.round([slope, intercept], 3), pred.round(2))
# %% scipy describe
desc = stats.describe(method_a)
print(desc.nobs, desc.minmax, round(desc.variance, 3), round(desc.skewness, 4))
# %% normal distribution questions
mu, sigma = 100, 15
print(f"P(X < 130) = {stats.norm.cdf(130, mu, sigma):.4f}")
print(f"P(85 < X < 115) = {stats.norm.cdf(115, mu, sigma) - stats.norm.cdf(85, mu, sigma):.4f}")
print(f"95th percentile = {stats.norm.ppf(0.95, loc=mu, scale=sigma):.2f}")
round(stats.norm.pdf(0), 6)
# %% binomial and poisson
print(round(stats.binom.pmf(3, 10, 0.5), 6), round(stats.binom.cdf(3, 10, 0.5), 6))
print(round(stats.poisson.pmf(2, 3.0), 6), round(stats.poisson.sf(5, 3.0), 6))
# %% z-scores and outliers
z = stats.zscore(method_a)
print(np.round(z, 3))
print("outliers:", method_a[np.abs(z) > 1.5].tolist())
# %% confidence interval for the mean of A
n = len(method_a)
t_crit = stats.t.ppf(0.975, n - 1)
half = t_crit * sd_a / np.sqrt(n)
ci = (method_a.mean() - half, method_a.mean() + half)
print(f"95% CI: ({ci[0]:.2f}, {ci[1]:.2f})")
# %% a chi-square test of independence
table = np.array([[30, 10], [20, 40]])
chi2, p_chi, dof, expected = stats.chi2_contingency(table)
print(round(chi2, 4), round(p_chi, 6), dof)
print(expected)
# %% the final answer
answer = {"mean_diff": round(float(method_a.mean() - method_b.mean()), 3), "t": round(float(t_manual), 3), "ci_low": round(float(ci[0]), 2)}
answer
