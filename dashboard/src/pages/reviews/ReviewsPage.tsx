import { PlaceholderPage } from '../PlaceholderPage';

export default function ReviewsPage() {
  return (
    <PlaceholderPage
      title="Reviews"
      plans="Reviews to publish or flag, product review summaries, and product questions and answers."
    />
  );
}
