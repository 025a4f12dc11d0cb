import { MAX_REVIEWS, newestReviewsFirst, revertNewest } from './reviews';

const review = (clinicianId: string, minute: number) => ({
  clinicianId,
  time: new Date(Date.UTC(2024, 0, 1, 0, minute)).toISOString(),
});

describe('patient reviews', () => {
  it('keep the newest first and at most ten', () => {
    let reviews = [review('a', 0)];
    for (let minute = 1; minute <= 12; minute++) reviews = newestReviewsFirst(reviews, review('b', minute));
    expect(reviews).toHaveLength(MAX_REVIEWS);
    expect(reviews[0]).toEqual(review('b', 12));
    expect(reviews[MAX_REVIEWS - 1]).toEqual(review('b', 3));
  });

  it('only the newest review is reverted, by whoever made it (or a server)', () => {
    const reviews = [review('a', 2), review('b', 1)];
    expect(revertNewest(reviews, 'a')).toEqual([review('b', 1)]);
    expect(revertNewest(reviews, null)).toEqual([review('b', 1)]);
    expect(() => revertNewest(reviews, 'b')).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
    expect(() => revertNewest([], 'a')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });
});
