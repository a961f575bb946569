import { Navigate, createBrowserRouter, useLocation } from 'react-router';
import { SignInPage } from '../pages/SignInPage';
import { ForgotPasswordPage } from '../pages/ForgotPasswordPage';
import { AccountPage } from '../pages/account/AccountPage';
import { NotFoundPage, RouteError } from '../pages/NotFoundPage';
import { AppLayout } from './AppLayout';
import { RequireSession } from './RequireSession';
import { SECTIONS } from './sections';

export const router = createBrowserRouter(
  [
    { path: '/sign-in', element: <SignInPage />, errorElement: <RouteError /> },
    { path: '/forgot-password', element: <ForgotPasswordPage />, errorElement: <RouteError /> },
    {
      element: (
        <RequireSession>
          <AppLayout />
        </RequireSession>
      ),
      errorElement: <RouteError />,
      children: [
        { index: true, element: <ToOverview /> },
        // `/*`: a page may have routes of its own (a record's URL, tabs).
        ...SECTIONS.map(({ path, Page }) => ({ path: `/${path}/*`, element: <Page /> })),
        // The signed-in user's own account and password, reached from the header (not a section).
        { path: '/account', element: <AccountPage /> },
        { path: '*', element: <NotFoundPage /> },
      ],
    },
  ],
  { basename: '/dashboard' },
);

/** /dashboard/ opens the overview, keeping the address's query (a bookmarked range: ?from=…&to=…&tz=…). */
function ToOverview() {
  const { search } = useLocation();
  return <Navigate to={{ pathname: '/overview', search }} replace />;
}
